import { resolveColumnIn, resolveTableIn } from './schema-names.ts';
import type { ColumnInfo, SchemaSnapshot, TableInfo } from './schema-types.ts';

export interface RefreshOptions {
  /** Run ANALYZE on the user's tables first so row estimates and common values are fresh. */
  analyze?: boolean;
}

/** A column match of SchemaCache.findColumns. */
export interface ColumnMatch {
  table: string;
  column: ColumnInfo;
}

/**
 * The schema cache: loaded once on first use, refreshed on demand and after staging commits.
 * The silent tools read only this (and app state), never table data.
 */
export interface SchemaCache {
  /** The snapshot, loading it on first use. */
  get(): Promise<SchemaSnapshot>;
  /** The snapshot if loaded, else undefined (never queries). */
  readonly current: SchemaSnapshot | undefined;
  refresh(options?: RefreshOptions): Promise<SchemaSnapshot>;
  /** Marks the snapshot stale (after a commit or DDL): the next get() reloads it, and current is undefined until then. */
  invalidate(): void;
  /**
   * A table by the name a person or a model types: "orders", "public.orders", "Orders",
   * "\"Mixed Case\"". Throws UnknownNameError (code 'unknown-table') naming the nearest tables.
   */
  resolveTable(name: string): Promise<TableInfo>;
  /** Throws UnknownNameError (code 'unknown-column') naming the nearest columns of that table. */
  resolveColumn(table: TableInfo, column: string): ColumnInfo;
  /**
   * Columns whose name or comment contains `text` (case-insensitive), across every table: exact
   * names first, then names containing it, then comments.
   */
  findColumns(text: string): Promise<ColumnMatch[]>;
}

/**
 * A schema cache over an engine's loader: loads once on first use (concurrent callers share the
 * load), reloads on refresh, and resolves names the same way on every engine.
 */
export function createSnapshotCache(load: (options: RefreshOptions) => Promise<SchemaSnapshot>): SchemaCache {
  let current: SchemaSnapshot | undefined;
  let loading: Promise<SchemaSnapshot> | undefined;

  const refresh = (options: RefreshOptions = {}): Promise<SchemaSnapshot> => {
    const run = (async () => {
      const snapshot = await load(options);
      current = snapshot;
      return snapshot;
    })();
    loading = run;
    run
      .finally(() => {
        if (loading === run) loading = undefined;
      })
      .catch(() => {});
    return run;
  };
  const get = (): Promise<SchemaSnapshot> => (current ? Promise.resolve(current) : (loading ?? refresh()));

  return {
    get,
    get current() {
      return current;
    },
    refresh,
    invalidate() {
      current = undefined;
    },
    async resolveTable(name) {
      return resolveTableIn(await get(), name);
    },
    resolveColumn: resolveColumnIn,
    async findColumns(text): Promise<ColumnMatch[]> {
      return findColumnsIn(await get(), text);
    },
  };
}

/**
 * Columns whose name or comment contains `text` (case-insensitive), across a snapshot: exact names
 * first, then names containing it, then comments.
 */
export function findColumnsIn(snapshot: SchemaSnapshot, text: string): ColumnMatch[] {
  const needle = text.trim().toLowerCase();
  const ranked: ColumnMatch[][] = [[], [], []];
  for (const table of snapshot.tables) {
    for (const column of table.columns) {
      const name = column.name.toLowerCase();
      const rank =
        name === needle
          ? 0
          : name.includes(needle)
            ? 1
            : column.comment?.toLowerCase().includes(needle)
              ? 2
              : -1;
      if (rank >= 0) ranked[rank]!.push({ table: table.qualifiedName, column });
    }
  }
  return ranked.flat();
}
