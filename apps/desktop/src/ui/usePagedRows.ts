import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type Filter, type Row, type RowAccess, type SortKey } from './api.ts';

export const PAGE_SIZE = 200;
// About 12k rows stay in memory; pages far from the viewport are dropped and fetched again if needed.
const MAX_PAGES = 60;

export interface PagedRows {
  getRow: (index: number) => Row | undefined;
  /** Fetches the pages covering [start, end] that are not cached or in flight. */
  ensure: (start: number, end: number) => void;
  /** Drops every cached page (after a commit, say) and refetches what is visible. */
  reload: () => void;
  /** Puts a row read again in place of the loaded one at `index`. */
  patchRow: (index: number, row: Row) => void;
  error: Error | null;
  /** Bumps whenever a page arrives, so the grid re-renders. */
  version: number;
  /** How the engine read the first page, where it says (DynamoDB: Query or Scan). */
  access: RowAccess | undefined;
  /** The columns the rows can be sorted by under this filter (absent: any), and a sort dropped, why. */
  sorting: { sortable?: string[]; dropped?: string };
  /**
   * Every column name the loaded rows have, in the order first seen. On a schemaless table
   * (DynamoDB) an item may carry an attribute the sampled schema never saw.
   */
  seenColumns: readonly string[];
}

/** Rows of one table view, fetched a page at a time as the grid scrolls. */
export function usePagedRows(table: string, filter: Filter, sort: SortKey[]): PagedRows {
  const queryKey = JSON.stringify([table, filter, sort]);
  const pages = useRef(new Map<number, Row[]>());
  const inflight = useRef(new Set<number>());
  const generation = useRef(0);
  const lastRange = useRef<[number, number]>([0, 0]);
  const query = useRef({ table, filter, sort });
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  const [access, setAccess] = useState<RowAccess | undefined>(undefined);
  const [sorting, setSorting] = useState<PagedRows['sorting']>({});
  const [seenColumns, setSeenColumns] = useState<readonly string[]>([]);

  const fetchPage = useCallback((page: number) => {
    if (pages.current.has(page) || inflight.current.has(page)) return;
    inflight.current.add(page);
    const gen = generation.current;
    const { table, filter, sort } = query.current;
    api
      .rows(table, { filter, sort, offset: page * PAGE_SIZE, limit: PAGE_SIZE })
      .then((result) => {
        if (gen !== generation.current) return;
        inflight.current.delete(page);
        pages.current.set(page, result.rows);
        if (page === 0) {
          setAccess(result.access);
          setSorting({
            ...(result.sortable ? { sortable: result.sortable } : {}),
            ...(result.sortDropped ? { dropped: result.sortDropped } : {}),
          });
        }
        setSeenColumns((seen) => withNames(seen, result.rows));
        evict(pages.current, lastRange.current);
        setError(null);
        setVersion((v) => v + 1);
      })
      .catch((cause: unknown) => {
        if (gen !== generation.current) return;
        inflight.current.delete(page);
        setError(cause instanceof Error ? cause : new Error(String(cause)));
      });
  }, []);

  const ensure = useCallback(
    (start: number, end: number) => {
      lastRange.current = [start, end];
      const from = Math.floor(start / PAGE_SIZE);
      const to = Math.floor(end / PAGE_SIZE);
      for (let page = from; page <= to; page++) fetchPage(page);
    },
    [fetchPage],
  );

  /** Puts a row read again in place of the loaded one (a value another writer changed). */
  const patchRow = useCallback((index: number, row: Row) => {
    const page = pages.current.get(Math.floor(index / PAGE_SIZE));
    if (!page) return;
    page[index % PAGE_SIZE] = row;
    setVersion((v) => v + 1);
  }, []);

  const reset = useCallback(() => {
    generation.current++;
    pages.current = new Map();
    inflight.current = new Set();
    setVersion((v) => v + 1);
    ensure(lastRange.current[0], lastRange.current[1]);
  }, [ensure]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: queryKey stands for table, filter and sort.
  useEffect(() => {
    query.current = { table, filter, sort };
    lastRange.current = [0, PAGE_SIZE - 1];
    setSeenColumns([]);
    setSorting({});
    reset();
  }, [queryKey, reset]);

  const getRow = useCallback(
    (index: number) => pages.current.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE],
    [],
  );

  return { getRow, ensure, reload: reset, patchRow, error, version, access, sorting, seenColumns };
}

/** `seen` with the names of `rows` it lacks appended (the same array when there are none). */
function withNames(seen: readonly string[], rows: readonly Row[]): readonly string[] {
  const known = new Set(seen);
  const added: string[] = [];
  for (const row of rows)
    for (const name of Object.keys(row))
      if (!known.has(name)) {
        known.add(name);
        added.push(name);
      }
  return added.length > 0 ? [...seen, ...added] : seen;
}

function evict(pages: Map<number, Row[]>, [start, end]: [number, number]) {
  if (pages.size <= MAX_PAGES) return;
  const center = (start + end) / 2 / PAGE_SIZE;
  const byDistance = [...pages.keys()].sort((a, b) => Math.abs(b - center) - Math.abs(a - center));
  for (const page of byDistance.slice(0, pages.size - MAX_PAGES)) pages.delete(page);
}
