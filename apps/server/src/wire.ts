// The data layer's shapes ↔ the desktop's wire shapes (@toolrow/desktop/wire). Pure functions.
import { basename } from 'node:path';
import { filterText } from '@toolrow/catalog';
import type {
  FilterCondition as DsCondition,
  ExportJob as DsExportJob,
  Filter as DsFilter,
  FilterOp as DsOp,
  Sort as DsSort,
  TableInfo as DsTableInfo,
  StagingConflict,
} from '@toolrow/datasource';
import { conflictReason, DataSourceError, isDataSourceError } from '@toolrow/datasource';
import type {
  AuditEntry,
  CommitConflict,
  ExportJob,
  Filter,
  FilterCondition,
  Row,
  SortKey,
  StagedChange,
  TableInfo,
  TableSummary,
  UiState,
  UiTab,
} from '@toolrow/desktop/wire';
import type {
  ChangeDiff,
  AuditEntry as DsAuditEntry,
  Tab as DsTab,
  UiState as DsUiState,
  Selection,
} from '@toolrow/state';
import { STAGING_ACTIONS } from '@toolrow/state';

export const EMPTY_FILTER: Filter = { combine: 'and', conditions: [] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCondition = (filter: DsFilter): filter is DsCondition => 'column' in filter && 'op' in filter;

/** The wire filter as the data layer's Filter; undefined when it restricts nothing. */
export function toDsFilter(filter: Filter | undefined | null): DsFilter | undefined {
  if (!filter) return undefined;
  // A nested filter the agent set travels as it is; the data layer validates it against the schema.
  if (filter.raw !== undefined && filter.raw !== null) return filter.raw as DsFilter;
  const conditions: DsCondition[] = filter.conditions.map((condition) => ({
    column: condition.column,
    op: condition.op as DsOp,
    ...(condition.value === undefined ? {} : { value: condition.value as DsCondition['value'] }),
  }));
  if (conditions.length === 0) return undefined;
  if (conditions.length === 1) return conditions[0];
  return filter.combine === 'or' ? { or: conditions } : { and: conditions };
}

/**
 * A filter the data layer refused, said for the filter bar: "Condition 2 (total = abc): …" rather
 * than the tool-input path "filter.and[1]: …". Other errors pass through unchanged.
 */
export function forFilterBar(error: unknown, filter: Filter | undefined | null): unknown {
  if (!isDataSourceError(error, 'invalid-filter') || !filter || filter.raw != null) return error;
  // The data layer says where as "filter.and[1] (total eq): …".
  const match = /^filter(?:\.(?:and|or)\[(\d+)\])?(?: \([^)]*\))?: /.exec(error.message);
  if (!match) return error;
  const index = match[1] === undefined ? 0 : Number(match[1]);
  const condition = filter.conditions[index];
  const ds = toDsFilter({ combine: 'and', conditions: condition ? [condition] : [] });
  const label = `${filter.conditions.length > 1 ? `Condition ${index + 1}` : 'The filter'}${ds ? ` (${filterText(ds)})` : ''}`;
  const rest = error.message.slice(match[0].length);
  return new DataSourceError('invalid-filter', `${label}: ${rest.charAt(0).toUpperCase()}${rest.slice(1)}`, {
    cause: error,
  });
}

/** The data layer's Filter as the flat wire filter; nested ones travel as `raw` with a description. */
export function fromDsFilter(filter: DsFilter | undefined | null): Filter {
  if (!filter) return EMPTY_FILTER;
  const flat = (parts: DsFilter[], combine: 'and' | 'or'): Filter | null =>
    parts.every(isCondition) ? { combine, conditions: parts.map(toWireCondition) } : null;
  let result: Filter | null = null;
  if (isCondition(filter)) result = { combine: 'and', conditions: [toWireCondition(filter)] };
  else if ('and' in filter) result = flat(filter.and, 'and');
  else if ('or' in filter) result = flat(filter.or, 'or');
  return result ?? { combine: 'and', conditions: [], raw: filter, text: filterText(filter) };
}

function toWireCondition(condition: DsCondition): FilterCondition {
  return {
    column: condition.column,
    op: condition.op as FilterCondition['op'],
    ...(condition.value === undefined ? {} : { value: condition.value }),
  };
}

export function toDsSort(sort: readonly SortKey[] | undefined): DsSort[] {
  return (sort ?? []).map((key) => ({ column: key.column, direction: key.direction }));
}

export function fromDsSort(sort: readonly DsSort[] | undefined): SortKey[] {
  return (sort ?? []).map((key) => ({ column: key.column, direction: key.direction ?? 'asc' }));
}

export function toWireTab(tab: DsTab): UiTab {
  switch (tab.kind) {
    case 'table':
      return {
        id: tab.id,
        kind: 'table',
        table: tab.table,
        filter: fromDsFilter(tab.filter),
        sort: fromDsSort(tab.sort),
      };
    case 'workbench':
      return { id: tab.id, kind: 'workbench', sql: tab.sql };
    case 'row':
      return { id: tab.id, kind: 'row', table: tab.table, key: tab.key };
  }
}

export function toDsTab(tab: UiTab): DsTab {
  switch (tab.kind) {
    case 'table': {
      const filter = toDsFilter(tab.filter);
      const sort = toDsSort(tab.sort);
      return {
        id: tab.id,
        kind: 'table',
        table: tab.table,
        ...(filter ? { filter } : {}),
        ...(sort.length > 0 ? { sort } : {}),
      };
    }
    case 'workbench':
      return { id: tab.id, kind: 'workbench', sql: tab.sql };
    case 'row':
      return { id: tab.id, kind: 'row', table: tab.table, key: tab.key };
  }
}

export function toWireUiState(state: DsUiState): UiState {
  const selection =
    state.selection && state.selection.tabId === state.focusedTabId
      ? state.selection.keys.map((key) => jsonRow(key))
      : [];
  return { tabs: state.tabs.map(toWireTab), focusedTabId: state.focusedTabId, selection };
}

/** The patch ui.update takes; the selection belongs to the focused table tab. */
export function toDsUiPatch(state: UiState): Pick<DsUiState, 'tabs' | 'focusedTabId' | 'selection'> {
  const tabs = state.tabs.map(toDsTab);
  const focusedTabId =
    state.focusedTabId && tabs.some((tab) => tab.id === state.focusedTabId) ? state.focusedTabId : null;
  const focused = tabs.find((tab) => tab.id === focusedTabId);
  const selection: Selection | null =
    focused && focused.kind === 'table' && state.selection.length > 0
      ? { tabId: focused.id, table: focused.table, keys: state.selection }
      : null;
  return { tabs, focusedTabId, selection };
}

/** Values as JSON carries them: dates as ISO text, bytes as \x hex (clipped). */
export function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) {
    const hex = Buffer.from(value.subarray(0, 64)).toString('hex');
    return `\\x${hex}${value.length > 64 ? '…' : ''}`;
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonValue);
  return value;
}

export function jsonRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) out[key] = jsonValue(value);
  return out;
}

/** A view (or materialized view): read-only rows, no row count of its own. */
function isView(table: DsTableInfo): boolean {
  return /view/.test(table.kind);
}

export function toTableSummary(table: DsTableInfo): TableSummary {
  return {
    id: table.qualifiedName,
    schema: table.schema,
    name: table.name,
    rowEstimate: Math.max(0, Math.round(table.rowEstimate)),
    columnCount: table.columns.length,
    ...(isView(table) ? { kind: 'view' as const } : {}),
  };
}

export function toWireTableInfo(table: DsTableInfo, filterOps?: readonly string[]): TableInfo {
  return {
    ...(filterOps ? { filterOps: [...filterOps] as TableInfo['filterOps'] } : {}),
    id: table.qualifiedName,
    schema: table.schema,
    name: table.name,
    columns: table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.nullable,
      default: column.default,
      ...(column.generated ? { generated: true } : {}),
    })),
    primaryKey: table.primaryKey,
    indexes: table.indexes.map((index) => ({
      name: index.name,
      columns: index.columns,
      unique: index.unique,
    })),
    foreignKeys: [
      ...table.foreignKeys.map((fk) => ({
        columns: fk.fromColumns,
        references: { table: fk.toTable, columns: fk.toColumns },
        direction: 'out' as const,
      })),
      ...table.referencedBy.map((fk) => ({
        columns: fk.toColumns,
        references: { table: fk.fromTable, columns: fk.fromColumns },
        direction: 'in' as const,
      })),
    ],
    rowEstimate: Math.max(0, Math.round(table.rowEstimate)),
    ...(table.openColumns ? { openColumns: true } : {}),
    ...(isView(table) ? { kind: 'view' as const } : {}),
  };
}

/** The column types a staged change's values are shown by (a table the cache lost shows them as they are). */
export type ColumnTypes = (table: string, column: string) => string | undefined;

export function columnTypesOf(tables: readonly DsTableInfo[]): ColumnTypes {
  const byName = new Map(tables.map((table) => [table.qualifiedName, table]));
  return (table, column) => byName.get(table)?.columns.find((each) => each.name === column)?.type;
}

export function toWireChange(diff: ChangeDiff, typeOf: ColumnTypes = () => undefined): StagedChange {
  const { change } = diff;
  return {
    id: String(change.id),
    kind: change.kind,
    table: change.table,
    key: change.key ? jsonRow(change.key) : null,
    // A side that has no value is left out, not null: on DynamoDB an absent attribute is not NULL.
    changes: diff.columns.map((column) => ({
      column: column.column,
      ...withType(typeOf(change.table, column.column)),
      ...(column.before === undefined ? {} : { before: jsonValue(column.before) }),
      ...(column.after === undefined ? {} : { after: jsonValue(column.after) }),
    })),
    stagedBy: change.stagedBy,
    ...(change.person ? { person: change.person } : {}),
    stagedAt: change.createdAt.toISOString(),
    ...(change.uncertainCommit ? { uncertainCommit: change.uncertainCommit } : {}),
  };
}

const withType = (type: string | undefined) => (type === undefined ? {} : { type });

/** A change commit refuses (or would refuse now): why, and the row as it is now. */
export function toWireConflict(conflict: StagingConflict): CommitConflict {
  return {
    id: String(conflict.changeId),
    table: conflict.table,
    key: conflict.key ? jsonRow(conflict.key) : null,
    reason: conflictReason(conflict),
    changedColumns: conflict.changedColumns,
    current: conflict.current ? jsonRow(conflict.current) : null,
  };
}

function describeSource(source: Record<string, unknown>): string {
  if (typeof source.table === 'string') {
    const filter = isRecord(source.filter) ? filterText(source.filter as DsFilter) : '';
    return filter ? `${source.table} where ${filter}` : source.table;
  }
  if (typeof source.sql === 'string') {
    const sql = source.sql.replace(/\s+/g, ' ').trim();
    return sql.length > 80 ? `${sql.slice(0, 79)}…` : sql;
  }
  return 'export';
}

export function toWireJob(job: DsExportJob): ExportJob {
  return {
    id: job.id,
    state: job.state,
    format: job.format,
    source: describeSource(job.source),
    rowsDone: job.rowsDone,
    rowsEstimate: job.rowsEstimate,
    fileName: job.path ? basename(job.path) : null,
    error: job.error,
    createdAt: job.createdAt.toISOString(),
  };
}

export function toWireAudit(entry: DsAuditEntry): AuditEntry {
  const detail = [entry.table, entry.detail].filter((part): part is string => !!part).join(' · ');
  return {
    id: String(entry.id),
    at: entry.createdAt.toISOString(),
    tool: entry.tool,
    decision: entry.decision,
    decidedBy: entry.decidedBy,
    profile: entry.profile,
    inputDigest: entry.inputDigest,
    summary: entry.summary,
    detail: detail || null,
    ...(entry.person ? { person: entry.person } : {}),
    // What a person did to the staging area (commit, discard, resolve): no tool of the catalog.
    ...((STAGING_ACTIONS as readonly string[]).includes(entry.tool) ? { action: 'staging' as const } : {}),
  };
}
