import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import {
  ApiError,
  api,
  type ExportJob,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterOp,
  type Row,
  type RowKey,
  type SortKey,
  type StagedChange,
  type TableInfo,
} from './api.ts';
import {
  columnWidth,
  describeFilter,
  displayTable,
  effectiveFilter,
  formatCount,
  isFiltered,
  keyBadge,
  keyOf,
  keyString,
  parseEdit,
  parseFilterValue,
} from './format.ts';
import { Grid, type GridColumn } from './Grid.tsx';
import { NewRowDialog } from './NewRow.tsx';
import { allowed } from './permissions.ts';
import { usePagedRows } from './usePagedRows.ts';
import { ErrorBox } from './widgets.tsx';

export interface TableViewProps {
  table: string;
  info: TableInfo | undefined;
  infoError: Error | null;
  filter: Filter;
  sort: SortKey[];
  onQueryChange: (filter: Filter, sort: SortKey[]) => void;
  selection: RowKey[];
  onSelectionChange: (keys: RowKey[]) => void;
  staged: StagedChange[];
  /** Bumps after a commit or discard, so cached pages are refetched. */
  dataVersion: number;
  /** Stages an update of one row; rejects with a readable error. */
  /** `seen`: the stored values the edit was based on (what the person saw). */
  onStagedEdit: (key: RowKey, values: Row, seen: Row) => Promise<void>;
  onStagedDelete: (keys: RowKey[]) => void;
  /** Stages new rows; rejects with a readable error (the dialog keeps the values). */
  onStagedInsert: (rows: Row[]) => Promise<void>;
  onOpenRow: (key: RowKey) => void;
  onExport: (format: ExportJob['format']) => void;
}

/** Why rows of this table cannot be changed here, or undefined when they can. */
export function readOnlyReason(table: string, info: TableInfo | undefined): string | undefined {
  if (!info) return undefined;
  if (info.kind === 'view') return `${displayTable(table)} is a view: its rows are read-only here.`;
  if (info.primaryKey.length === 0)
    return `${displayTable(table)} has no primary key, so a row cannot be named to stage an edit. Use the SQL workbench to look at it.`;
  const stage = allowed('stage');
  return stage.ok ? undefined : stage.why;
}

export function TableView(props: TableViewProps) {
  const { table, info, filter, sort } = props;
  const applied = useMemo(() => effectiveFilter(filter), [filter]);
  const paged = usePagedRows(table, applied, sort);
  const filterRef = useRef<HTMLElement>(null);
  const [adding, setAdding] = useState(false);
  // Said when Enter or F2 asks to change a row that cannot be changed (never silently nothing).
  const [readOnlyNotice, setReadOnlyNotice] = useState<string | null>(null);
  const readOnly = readOnlyReason(table, info);

  const { count, countError } = useRowCount(table, applied, props.dataVersion);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the data changed underneath (commit, discard).
  useEffect(() => {
    if (props.dataVersion > 0) paged.reload();
  }, [props.dataVersion]);

  const columns: GridColumn[] = useMemo(() => {
    const declared: GridColumn[] = (info?.columns ?? []).map((column) => ({
      name: column.name,
      type: column.type,
      width: columnWidth(column),
      key: keyBadge(column, info?.primaryKey ?? []),
    }));
    // Attributes the loaded items have that the sampled schema has not seen (DynamoDB is schemaless).
    const known = new Set(declared.map((column) => column.name));
    const extra = info ? paged.seenColumns.filter((name) => !known.has(name)) : [];
    const typedValues = info?.openColumns === true;
    return [
      ...declared,
      ...extra.map((name) => ({ name, typedValues, width: columnWidth({ name, type: '' }) })),
    ];
  }, [info, paged.seenColumns]);
  const primaryKey = info?.primaryKey ?? [];

  const stagedByKey = useMemo(() => stagedRowsOf(props.staged, table), [props.staged, table]);

  const selected = useMemo(() => new Set(props.selection.map(keyString)), [props.selection]);

  const rowCount = count ?? (paged.getRow(0) ? Math.max(1, countLoaded(paged.getRow)) : 0);

  const { sortNotice, setSortNotice, onSort } = useSorting(paged.sorting, filter, sort, props.onQueryChange);

  const onEdit = async (index: number, column: string, text: string) => {
    const row = paged.getRow(index);
    // A column the sampled schema never saw (a DynamoDB attribute) edits as text.
    const info_ = info?.columns.find((c) => c.name === column) ?? {
      name: column,
      type: '',
      nullable: true,
    };
    if (!row) return 'The row is not loaded yet; try again in a moment.';
    const key = keyOf(row, primaryKey);
    if (!key)
      return `${table} has no primary key, so its rows cannot be edited here. Use the SQL workbench to look at it.`;
    const parsed = parseEdit(text, info_);
    if ('error' in parsed) return parsed.error;
    try {
      // The value the person saw goes along: if another writer changed it since, staging says so.
      await props.onStagedEdit(
        key,
        { [column]: parsed.value },
        row[column] === undefined ? {} : { [column]: row[column] },
      );
      return undefined;
    } catch (error) {
      // Another writer changed the value after this page was read: read the row again, so the grid
      // shows it as it is now and Enter again stages against it (the person has seen it and decided).
      if (error instanceof ApiError && error.code === 'staging-conflict')
        await api
          .row(table, key)
          .then((result) => result.row && paged.patchRow(index, result.row))
          .catch(() => undefined);
      return error instanceof Error ? error.message : String(error);
    }
  };

  const toggleSelect = (index: number) => {
    const row = paged.getRow(index);
    const key = row ? keyOf(row, primaryKey) : null;
    if (!key) return;
    const id = keyString(key);
    props.onSelectionChange(
      selected.has(id)
        ? props.selection.filter((other) => keyString(other) !== id)
        : [...props.selection, key],
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    const typing = target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT';
    if (event.key === '/' && !typing) {
      event.preventDefault();
      const input = filterRef.current?.querySelector<HTMLElement>('input, select');
      if (input) input.focus();
      else filterRef.current?.querySelector<HTMLButtonElement>('button')?.click();
    }
  };

  const error = props.infoError ?? countError ?? paged.error;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the view listens for its '/' shortcut.
    <div className="view" onKeyDown={onKeyDown}>
      <TableToolbar
        table={table}
        count={count}
        countError={countError}
        access={paged.access}
        applied={applied}
        sort={sort}
        selection={props.selection}
        onStagedDelete={props.onStagedDelete}
        onClearSelection={() => props.onSelectionChange([])}
        onAdd={readOnly === undefined && info ? () => setAdding(true) : undefined}
        onExport={props.onExport}
      />
      <FilterBar
        ref={filterRef}
        info={info}
        filter={filter}
        onApply={(next) => props.onQueryChange(next, sort)}
      />
      {error ? <ErrorBox error={error} /> : null}
      {adding && info ? (
        <NewRowDialog
          table={table}
          info={info}
          onStage={(row) => props.onStagedInsert([row])}
          onClose={() => setAdding(false)}
        />
      ) : null}
      {readOnlyNotice ? (
        <Notice testId="read-only-notice" text={readOnlyNotice} onDismiss={() => setReadOnlyNotice(null)} />
      ) : null}
      {sortNotice ? (
        <Notice testId="sort-notice" text={sortNotice} onDismiss={() => setSortNotice(null)} />
      ) : null}
      {error instanceof ApiError && error.code === 'invalid-filter' && isFiltered(applied) ? (
        <div className="toolbar">
          <button
            type="button"
            className="btn small"
            onClick={() => props.onQueryChange({ combine: 'and', conditions: [] }, sort)}
          >
            Clear filter
          </button>
          <span className="faint">or change the condition above and apply it again</span>
        </div>
      ) : null}
      {info ? (
        <Grid
          label={`Rows of ${table}`}
          columns={columns}
          rowCount={rowCount}
          getRow={paged.getRow}
          onRange={paged.ensure}
          sort={sort}
          onSort={onSort}
          isSelected={(index) => {
            const row = paged.getRow(index);
            const key = row ? keyOf(row, primaryKey) : null;
            return key ? selected.has(keyString(key)) : false;
          }}
          onToggleSelect={toggleSelect}
          stagedValue={(row: Row, column: string) => {
            const key = keyOf(row, primaryKey);
            const entry = key ? stagedByKey.get(keyString(key)) : undefined;
            if (!entry) return undefined;
            if (entry.kind === 'delete')
              return { value: column === primaryKey[0] ? row[column] : '⌫ staged delete' };
            return entry.values.has(column) ? { value: entry.values.get(column) } : undefined;
          }}
          onEdit={readOnly === undefined ? onEdit : undefined}
          onReadOnly={() => setReadOnlyNotice(readOnly ?? null)}
          onOpenRow={(index) => {
            const row = paged.getRow(index);
            const key = row ? keyOf(row, primaryKey) : null;
            if (key) props.onOpenRow(key);
            else
              setReadOnlyNotice(readOnly ?? `This row of ${displayTable(table)} has no key to open it by.`);
          }}
        />
      ) : error ? null : (
        <div className="empty">Loading {table}…</div>
      )}
    </div>
  );
}

function countLoaded(getRow: (index: number) => Row | undefined): number {
  let n = 0;
  while (getRow(n)) n++;
  return n;
}

// ── Filter bar ─────────────────────────────────────────────────────────────────────────────

interface FilterBarProps {
  ref: React.Ref<HTMLElement>;
  info: TableInfo | undefined;
  filter: Filter;
  onApply: (filter: Filter) => void;
}

interface DraftCondition {
  column: string;
  op: FilterOp;
  text: string;
  text2: string;
}

function toDraft(condition: FilterCondition): DraftCondition {
  const value = condition.value;
  if (condition.op === 'between' && Array.isArray(value)) {
    return {
      column: condition.column,
      op: condition.op,
      text: String(value[0] ?? ''),
      text2: String(value[1] ?? ''),
    };
  }
  if ((condition.op === 'in' || condition.op === 'not_in') && Array.isArray(value)) {
    return { column: condition.column, op: condition.op, text: value.map(String).join(', '), text2: '' };
  }
  return { column: condition.column, op: condition.op, text: value == null ? '' : String(value), text2: '' };
}

type Parsed = { value: unknown } | { error: string };

/** The condition for the server, or what is wrong with the draft (said beside its row). */
function fromDraft(draft: DraftCondition, info: TableInfo | undefined): FilterCondition | { error: string } {
  const column = info?.columns.find((each) => each.name === draft.column);
  const values = (parsed: Parsed[]): unknown[] | { error: string } => {
    const failed = parsed.find((each): each is { error: string } => 'error' in each);
    return failed ?? parsed.map((each) => (each as { value: unknown }).value);
  };
  switch (draft.op) {
    case 'is_null':
    case 'is_not_null':
      return { column: draft.column, op: draft.op };
    case 'between': {
      const both = values([parseFilterValue(draft.text, column), parseFilterValue(draft.text2, column)]);
      return 'error' in both ? both : { column: draft.column, op: draft.op, value: both };
    }
    case 'in':
    case 'not_in': {
      const parts = draft.text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      if (parts.length === 0) return { error: 'Type one or more values, separated by commas.' };
      const list = values(parts.map((part) => parseFilterValue(part, column)));
      return 'error' in list ? list : { column: draft.column, op: draft.op, value: list };
    }
    case 'contains':
    case 'starts_with':
    case 'ends_with':
    case 'like':
    case 'ilike':
      return { column: draft.column, op: draft.op, value: draft.text };
    default: {
      const one = parseFilterValue(draft.text, column);
      return 'error' in one ? one : { column: draft.column, op: draft.op, value: one.value };
    }
  }
}

function FilterBar({ ref, info, filter, onApply }: FilterBarProps) {
  const [combine, setCombine] = useState(filter.combine);
  const [drafts, setDrafts] = useState<DraftCondition[]>(filter.conditions.map(toDraft));
  const filterKey = JSON.stringify(filter);

  // biome-ignore lint/correctness/useExhaustiveDependencies: filterKey stands for the filter (it changes when the agent sets one).
  useEffect(() => {
    setCombine(filter.combine);
    setDrafts(filter.conditions.map(toDraft));
  }, [filterKey]);

  const columns = info?.columns ?? [];
  // What is wrong with each draft, by its index: a filter with a problem is not applied (nor saved).
  const [problems, setProblems] = useState<Record<number, string>>({});
  const apply = (next: DraftCondition[] = drafts, nextCombine = combine) => {
    const built = next.map((draft) => fromDraft(draft, info));
    const found: Record<number, string> = {};
    built.forEach((each, index) => {
      if ('error' in each) found[index] = each.error;
    });
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    onApply({ combine: nextCombine, conditions: built as FilterCondition[] });
  };
  const update = (index: number, patch: Partial<DraftCondition>) =>
    setDrafts((current) => current.map((draft, i) => (i === index ? { ...draft, ...patch } : draft)));
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      apply();
    }
  };

  return (
    <section className="filterbar" ref={ref} aria-label="Filter">
      {filter.raw !== undefined ? (
        <div className="filter-row">
          <span className="combine">where</span>
          <span className="badge accent">{filter.text ?? 'custom filter'}</span>
          <button
            type="button"
            className="btn small ghost"
            onClick={() => onApply({ combine: 'and', conditions: [] })}
          >
            Clear
          </button>
          <span className="faint">a nested filter the agent set; conditions you add replace it</span>
        </div>
      ) : null}
      {drafts.map((draft, index) => {
        const arity = FILTER_OPS.find((op) => op.op === draft.op)?.arity ?? 1;
        // Only what the engine serves is offered (DynamoDB has no like, ilike or ends with).
        const ops = FILTER_OPS.filter((op) => !info?.filterOps || info.filterOps.includes(op.op));
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no identity beyond their position.
          <div className="filter-row" key={index}>
            <span className="combine">
              {index === 0 ? (
                'where'
              ) : index === 1 ? (
                <button
                  type="button"
                  className="btn small ghost"
                  title="Switch between AND and OR"
                  onClick={() => {
                    const next = combine === 'and' ? 'or' : 'and';
                    setCombine(next);
                    apply(drafts, next);
                  }}
                >
                  {combine}
                </button>
              ) : (
                combine
              )}
            </span>
            <select
              className="select"
              aria-label="Filter column"
              value={draft.column}
              onChange={(event) => update(index, { column: event.target.value })}
              onKeyDown={onKeyDown}
            >
              {columns.map((column) => (
                <option key={column.name} value={column.name}>
                  {column.name}
                </option>
              ))}
            </select>
            <select
              className="select"
              aria-label="Filter operator"
              value={draft.op}
              onChange={(event) => update(index, { op: event.target.value as FilterOp })}
              onKeyDown={onKeyDown}
            >
              {ops.map((op) => (
                <option key={op.op} value={op.op}>
                  {op.label}
                </option>
              ))}
            </select>
            {arity >= 1 ? (
              <input
                className="input"
                aria-invalid={problems[index] ? true : undefined}
                aria-label="Filter value"
                placeholder={draft.op === 'in' || draft.op === 'not_in' ? 'a, b, c' : 'value'}
                value={draft.text}
                onChange={(event) => update(index, { text: event.target.value })}
                onKeyDown={onKeyDown}
              />
            ) : null}
            {arity === 2 ? (
              <>
                <span className="muted">and</span>
                <input
                  className="input"
                  aria-label="Filter upper value"
                  placeholder="value"
                  value={draft.text2}
                  onChange={(event) => update(index, { text2: event.target.value })}
                  onKeyDown={onKeyDown}
                />
              </>
            ) : null}
            <button
              type="button"
              className="btn small ghost"
              aria-label="Remove condition"
              title="Remove this condition"
              onClick={() => {
                const next = drafts.filter((_, i) => i !== index);
                setDrafts(next);
                apply(next);
              }}
            >
              ✕
            </button>
            {problems[index] ? (
              <span className="filter-problem" role="alert" data-testid="filter-problem">
                {problems[index]}
              </span>
            ) : null}
          </div>
        );
      })}
      <div className="filter-row">
        <span className="combine" />
        <button
          type="button"
          className="btn small"
          disabled={columns.length === 0}
          onClick={() =>
            setDrafts([...drafts, { column: columns[0]?.name ?? '', op: 'eq', text: '', text2: '' }])
          }
          title="Add a condition (shortcut: /)"
        >
          + Filter
        </button>
        {drafts.length > 0 ? (
          <>
            <button type="button" className="btn small primary" onClick={() => apply()}>
              Apply
            </button>
            <button
              type="button"
              className="btn small ghost"
              onClick={() => {
                setDrafts([]);
                apply([]);
              }}
            >
              Clear
            </button>
            <span className="faint">Enter applies</span>
          </>
        ) : (
          <span className="faint">
            <kbd>/</kbd> filter · click a header to sort · <kbd>Enter</kbd> edit · <kbd>Shift</kbd>+
            <kbd>Enter</kbd> open record
          </span>
        )}
      </div>
    </section>
  );
}

/** The rows matching the filter, counted again when the filter or the data changes. */
function useRowCount(table: string, applied: Filter, dataVersion: number) {
  const [count, setCount] = useState<number | null>(null);
  const [countError, setCountError] = useState<Error | null>(null);
  const appliedKey = JSON.stringify(applied);
  // biome-ignore lint/correctness/useExhaustiveDependencies: appliedKey stands for the applied filter.
  useEffect(() => {
    let live = true;
    setCount(null);
    setCountError(null);
    api
      .count(table, applied)
      .then((result) => live && setCount(result.count))
      .catch(
        (error: unknown) => live && setCountError(error instanceof Error ? error : new Error(String(error))),
      );
    return () => {
      live = false;
    };
  }, [table, appliedKey, dataVersion]);
  return { count, countError };
}

/** A line the person reads and dismisses (what a sort or an edit could not do, and why). */
function Notice({ testId, text, onDismiss }: { testId: string; text: string; onDismiss: () => void }) {
  return (
    <div className="toolbar notice" data-testid={testId} role="status">
      <span>{text}</span>
      <button type="button" className="btn small ghost" onClick={onDismiss}>
        OK
      </button>
    </div>
  );
}

/** Above the grid: the table, its count, how it was read, the filter, sort and selection, add and export. */
function TableToolbar({
  table,
  count,
  countError,
  access,
  applied,
  sort,
  selection,
  onStagedDelete,
  onClearSelection,
  onAdd,
  onExport,
}: {
  table: string;
  count: number | null;
  countError: Error | null;
  access: ReturnType<typeof usePagedRows>['access'];
  applied: Filter;
  sort: SortKey[];
  selection: RowKey[];
  onStagedDelete: (keys: RowKey[]) => void;
  onClearSelection: () => void;
  onAdd: (() => void) | undefined;
  onExport: (format: ExportJob['format']) => void;
}) {
  const [exportFormat, setExportFormat] = useState<ExportJob['format']>('csv');
  return (
    <div className="toolbar table-toolbar" data-testid="table-toolbar">
      <span className="title">{displayTable(table)}</span>
      <span className="muted num" data-testid="row-count">
        {countError
          ? 'count failed'
          : count === null
            ? 'counting…'
            : `${formatCount(count)} ${count === 1 ? 'row' : 'rows'}`}
      </span>
      {access ? (
        <span
          className={`badge ${access.operation === 'Scan' ? 'gated' : 'ok'}`}
          data-testid="access-badge"
          title={
            access.operation === 'Scan'
              ? 'A Scan reads the whole table: filter on the partition key to make it a Query'
              : 'A Query reads only the items under the key'
          }
        >
          {access.operation}
          {access.index ? ` on ${access.index}` : ''}
          {access.keyCondition ? ` (${access.keyCondition})` : ''} · read {formatCount(access.itemsRead)}
        </span>
      ) : null}
      {isFiltered(applied) ? (
        <span className="badge accent" data-testid="filter-badge">
          filtered: {describeFilter(applied)}
        </span>
      ) : null}
      {sort.length > 0 ? (
        <span className="badge">
          sorted: {sort.map((key) => `${key.column} ${key.direction}`).join(', ')}
        </span>
      ) : null}
      {selection.length > 0 ? (
        <>
          <span className="badge">{selection.length} selected</span>
          <button
            type="button"
            className="btn small danger"
            onClick={() => onStagedDelete(selection)}
            title="Stage the deletion of the selected rows (nothing is deleted until you commit)"
          >
            Stage delete
          </button>
          <button type="button" className="btn small ghost" onClick={onClearSelection}>
            Clear selection
          </button>
        </>
      ) : null}
      <span className="spacer" />
      {onAdd ? (
        <button
          type="button"
          className="btn"
          onClick={onAdd}
          title="Stage a new row (inserted when the staging area is committed)"
        >
          Add row
        </button>
      ) : null}
      <select
        className="select"
        aria-label="Export format"
        value={exportFormat}
        onChange={(event) => setExportFormat(event.target.value as ExportJob['format'])}
      >
        <option value="csv">CSV</option>
        <option value="json">JSON</option>
        <option value="ndjson">NDJSON</option>
      </select>
      <button
        type="button"
        className="btn"
        onClick={() => onExport(exportFormat)}
        title="Export the rows matching the filter"
      >
        Export
      </button>
    </div>
  );
}

/**
 * Sorting by a header, and what the engine said of it: a sort it dropped, or a header it cannot
 * sort by (DynamoDB). A notice speaks of the filter it was given under: another filter hides it.
 */
function useSorting(
  sorting: ReturnType<typeof usePagedRows>['sorting'],
  filter: Filter,
  sort: SortKey[],
  onQueryChange: (filter: Filter, sort: SortKey[]) => void,
) {
  const filterKey = JSON.stringify(filter ?? null);
  const [notice, setNotice] = useState<{ text: string; filterKey: string } | null>(null);
  const setSortNotice = (text: string | null) => setNotice(text === null ? null : { text, filterKey });
  const sortNotice = notice?.filterKey === filterKey ? notice.text : null;
  const { sortable, dropped } = sorting;
  // biome-ignore lint/correctness/useExhaustiveDependencies: setSortNotice stands for the filter key it reads.
  useEffect(() => {
    if (!dropped || sort.length === 0) return;
    setSortNotice(dropped);
    onQueryChange(filter, []);
  }, [dropped, sort.length, filter, onQueryChange]);

  const onSort = (column: string, additive: boolean) => {
    if (sortable && !sortable.includes(column)) {
      setSortNotice(
        `${column} cannot be sorted here: DynamoDB returns items in key order${sortable.length > 0 ? `, and these rows can be sorted by ${sortable.join(', ')} alone` : ', and this read is a Scan, in no order'}. Filter on a partition key (=) to read in its sort key's order.`,
      );
      return;
    }
    setSortNotice(null);
    const current = sort.find((key) => key.column === column);
    let next: SortKey[];
    if (!current) next = additive ? [...sort, { column, direction: 'asc' }] : [{ column, direction: 'asc' }];
    else if (current.direction === 'asc') {
      next = (additive ? sort : [current]).map((key) =>
        key.column === column ? { column, direction: 'desc' } : key,
      );
    } else next = additive ? sort.filter((key) => key.column !== column) : [];
    onQueryChange(filter, next);
  };
  return { sortNotice, setSortNotice, onSort };
}

/** What is staged for each row of `table`, by its key: a delete, or the columns' new values. */
function stagedRowsOf(staged: readonly StagedChange[], table: string) {
  const map = new Map<string, { kind: StagedChange['kind']; values: Map<string, unknown> }>();
  for (const change of staged) {
    if (change.table !== table || !change.key) continue;
    const id = keyString(change.key);
    const entry = map.get(id) ?? { kind: change.kind, values: new Map<string, unknown>() };
    for (const column of change.changes) entry.values.set(column.column, column.after);
    if (change.kind === 'delete') entry.kind = 'delete';
    map.set(id, entry);
  }
  return map;
}
