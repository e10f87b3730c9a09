// Silent tools over the schema cache: they never read table data.
import type { ForeignKeyInfo, TableInfo } from '@toolrow/datasource';
import { z } from 'zod';
import { capList } from '../bounds.ts';
import { pagesOf, RESULT_TOKEN_BUDGET, range, tokensOf } from '../budget.ts';
import { defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { columnName, limitField, pageField, tableName, textField } from '../schemas.ts';

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function columnSummary(table: TableInfo, max = 12): string {
  const shown = table.columns.slice(0, max).map((column) => `${column.name} ${column.type}`);
  const more = table.columns.length - shown.length;
  return more > 0 ? `${shown.join(', ')} (+${more} more)` : shown.join(', ');
}

function foreignKey(fk: ForeignKeyInfo) {
  return {
    name: fk.name,
    from: `${fk.fromTable}(${fk.fromColumns.join(', ')})`,
    to: `${fk.toTable}(${fk.toColumns.join(', ')})`,
    onDelete: fk.onDelete,
  };
}

export const listConnections = defineTool({
  inputSchema: z.strictObject({}),
  async execute(_input, ctx) {
    const all = await ctx.state.connections.list();
    // An MCP client is served one connection, the one its token or grant is for: it never learns
    // of the others.
    const connections = ctx.actor.startsWith('mcp:') ? all.filter((connection) => connection.active) : all;
    return {
      connections: connections.map((connection) => ({
        name: connection.name,
        engine: connection.engine,
        description: connection.description,
        active: connection.active,
      })),
      // What runQuery, validateQuery and explainQuery take on the active connection.
      queryLanguage: `${ctx.source.queries.language.name} (${ctx.source.queries.language.dialect} dialect)`,
    };
  },
});

/** The page asked for, or an error naming the pages there are. */
function pageOf<T>(pages: T[][], page: number | undefined, what: string, tool: string): T[] {
  const index = (page ?? 1) - 1;
  if (index >= pages.length) {
    throw new ToolError(
      'invalid-input',
      tool,
      `page: ${what} has ${pages.length} page${pages.length === 1 ? '' : 's'}, so page ${page} does not exist. Ask for page 1 to ${pages.length}.`,
    );
  }
  return pages[index]!;
}

const MAX_SCHEMAS_SHOWN = 30;

/** A table in listTables: its columns summed up when the whole list fits, else only counted. */
export interface TableEntry {
  name: string;
  kind: TableInfo['kind'];
  rowEstimate: number;
  columns?: string;
  columnCount?: number;
}

export const listTables = defineTool({
  inputSchema: z.strictObject({
    schema: textField(200).optional().describe('Only tables of this schema (default: all).'),
    name: textField(200).optional().describe('Part of a name or comment.'),
    page: pageField,
  }),
  async execute(input, ctx) {
    const snapshot = await ctx.source.schema.get();
    const needle = input.name?.toLowerCase();
    const tables = snapshot.tables.filter(
      (table) =>
        (input.schema === undefined || table.schema.toLowerCase() === input.schema.toLowerCase()) &&
        (needle === undefined ||
          table.qualifiedName.toLowerCase().includes(needle) ||
          (table.comment ?? '').toLowerCase().includes(needle)),
    );
    const detailed = tables.map(
      (table): TableEntry => ({
        name: table.qualifiedName,
        kind: table.kind,
        rowEstimate: table.rowEstimate,
        columns: columnSummary(table),
      }),
    );
    const empty =
      tables.length === 0
        ? {
            note:
              needle !== undefined
                ? `No table name or comment contains '${input.name}'${input.schema ? ` in schema '${input.schema}'` : ''}. Try a shorter part of the name, or findColumns to search column names.`
                : input.schema === undefined
                  ? 'The database has no user tables yet (the user can run `toolrow db seed` for a sample shop).'
                  : `No tables in schema '${input.schema}'. Schemas with tables: ${[...new Set(snapshot.tables.map((table) => table.schema))].join(', ') || 'none'}.`,
          }
        : {};
    if (input.page === undefined && tokensOf(detailed) <= RESULT_TOKEN_BUDGET - 200) {
      return { totalTables: tables.length, tables: detailed, truncated: false, ...empty };
    }
    // Too many to show whole: counts per schema, then the largest tables first, a page at a time,
    // each with its column count instead of its columns (describeTable shows those).
    const counts = new Map<string, number>();
    for (const table of tables) counts.set(table.schema, (counts.get(table.schema) ?? 0) + 1);
    const schemas = [...counts].map(([schema, count]) => ({ schema, tables: count }));
    const compact = [...tables]
      .sort((a, b) => b.rowEstimate - a.rowEstimate || a.qualifiedName.localeCompare(b.qualifiedName))
      .map(
        (table): TableEntry => ({
          name: table.qualifiedName,
          kind: table.kind,
          rowEstimate: table.rowEstimate,
          columnCount: table.columns.length,
        }),
      );
    const header = {
      totalTables: tables.length,
      schemas: schemas.slice(0, MAX_SCHEMAS_SHOWN),
      ...(schemas.length > MAX_SCHEMAS_SHOWN ? { moreSchemas: schemas.length - MAX_SCHEMAS_SHOWN } : {}),
    };
    const pages = pagesOf(compact, RESULT_TOKEN_BUDGET - tokensOf(header) - 250, tokensOf);
    const shown = pageOf(pages, input.page, 'This list', 'listTables');
    const page = input.page ?? 1;
    const first = pages.slice(0, page - 1).reduce((sum, each) => sum + each.length, 0) + 1;
    const filters = {
      ...(input.schema ? { schema: input.schema } : {}),
      ...(input.name ? { name: input.name } : {}),
    };
    return {
      ...header,
      page,
      pages: pages.length,
      tables: shown,
      truncated: page < pages.length,
      note: `Tables ${range(first, shown.length)} of ${tables.length}, largest first (page ${page} of ${pages.length}).${
        page < pages.length ? ` Next: listTables(${JSON.stringify({ ...filters, page: page + 1 })}).` : ''
      } Narrow with {"schema": "…"} or {"name": "part of a name"}; describeTable shows one table's columns.`,
      ...empty,
    };
  },
});

const MAX_KEYS_SHOWN = 20;

export const describeTable = defineTool({
  inputSchema: z.strictObject({ table: tableName, page: pageField }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const columns = table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.nullable,
      ...(column.default !== null ? { default: column.default } : {}),
      ...(column.primaryKey ? { primaryKey: true } : {}),
      ...(column.comment ? { comment: column.comment } : {}),
    }));
    const indexes = table.indexes.map((index) => ({
      name: index.name,
      columns: index.columns,
      unique: index.unique,
    }));
    const left = (list: readonly unknown[]) => Math.max(0, list.length - MAX_KEYS_SHOWN);
    const header = {
      table: table.qualifiedName,
      kind: table.kind,
      ...(table.comment ? { comment: table.comment } : {}),
      rowEstimate: table.rowEstimate,
      primaryKey: table.primaryKey,
      columnCount: columns.length,
      indexes: indexes.slice(0, MAX_KEYS_SHOWN),
      foreignKeys: table.foreignKeys.slice(0, MAX_KEYS_SHOWN).map(foreignKey),
      referencedBy: table.referencedBy.slice(0, MAX_KEYS_SHOWN).map(foreignKey),
      // Past 20 of a kind, how many more (relations and the catalog show them all).
      ...(left(indexes) + left(table.foreignKeys) + left(table.referencedBy) > 0
        ? {
            notShown: {
              indexes: left(indexes),
              foreignKeys: left(table.foreignKeys),
              referencedBy: left(table.referencedBy),
            },
          }
        : {}),
    };
    const pages = pagesOf(columns, RESULT_TOKEN_BUDGET - tokensOf(header) - 200, tokensOf);
    if (pages.length === 1 && input.page === undefined) return { ...header, columns };
    const shown = pageOf(pages, input.page, `${table.qualifiedName}'s column list`, 'describeTable');
    const page = input.page ?? 1;
    const first = pages.slice(0, page - 1).reduce((sum, each) => sum + each.length, 0) + 1;
    return {
      ...header,
      page,
      pages: pages.length,
      columns: shown,
      note: `Columns ${range(first, shown.length)} of ${columns.length} (page ${page} of ${pages.length}).${
        page < pages.length
          ? ` Next: describeTable(${JSON.stringify({ table: table.qualifiedName, page: page + 1 })}).`
          : ''
      } findColumns({"text": "part of a name"}) finds a column by name.`,
    };
  },
});

export const findColumns = defineTool({
  inputSchema: z.strictObject({
    text: textField(100).describe('Part of a column name, any case, e.g. "email".'),
    limit: limitField(50, 500),
  }),
  async execute(input, ctx) {
    const matches = await ctx.source.schema.findColumns(input.text);
    const { items } = capList(matches, input.limit ?? 50);
    const entries = items.map((match) => ({
      table: match.table,
      column: match.column.name,
      type: match.column.type,
    }));
    const [fits = []] = pagesOf(entries, RESULT_TOKEN_BUDGET - 300, tokensOf);
    const truncated = fits.length < matches.length;
    return {
      matches: fits,
      truncated,
      ...(truncated
        ? {
            totalMatches: matches.length,
            note: `${fits.length} of ${matches.length} matching columns shown. Give a longer part of the name to narrow it, or describeTable for one table's columns.`,
          }
        : {}),
      ...(matches.length === 0
        ? { note: `No column name contains '${input.text}'. Try a shorter or different word.` }
        : {}),
    };
  },
});

export const sampleValues = defineTool({
  inputSchema: z.strictObject({
    table: tableName,
    column: columnName,
    limit: limitField(20, 100),
  }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const column = ctx.source.schema.resolveColumn(table, input.column);
    const { items, truncated } = capList(column.commonValues, input.limit ?? 20);
    const known = column.commonValues.length > 0 || column.min !== null || column.max !== null;
    return {
      table: table.qualifiedName,
      column: column.name,
      type: column.type,
      commonValues: items.map((value) => ({
        value: value.value,
        ...(value.frequency !== undefined ? { frequency: Number(value.frequency.toFixed(4)) } : {}),
      })),
      truncated,
      min: column.min,
      max: column.max,
      distinctEstimate: column.distinctEstimate,
      nullFraction: column.nullFraction,
      ...(known
        ? {}
        : {
            note: 'The schema cache has no statistics for this column yet (the table was never analysed). A runQuery with SELECT DISTINCT … LIMIT 20 reads real values.',
          }),
    };
  },
});

export const getTableStats = defineTool({
  inputSchema: z.strictObject({ table: tableName }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const snapshot = await ctx.source.schema.get();
    return {
      table: table.qualifiedName,
      kind: table.kind,
      rowEstimate: table.rowEstimate,
      tableBytes: table.tableBytes,
      totalBytes: table.totalBytes,
      tableSize: formatBytes(table.tableBytes),
      totalSize: formatBytes(table.totalBytes),
      columns: table.columns.length,
      indexes: table.indexes.length,
      statisticsAsOf: snapshot.refreshedAt.toISOString(),
      note: 'rowEstimate is the planner estimate, not an exact count; countRows counts exactly.',
    };
  },
});

export const getIndexStats = defineTool({
  inputSchema: z.strictObject({ table: tableName }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const unused = table.indexes.filter((index) => index.scans === 0 && !index.primary && !index.unique);
    return {
      table: table.qualifiedName,
      indexes: table.indexes.map((index) => ({
        name: index.name,
        columns: index.columns,
        unique: index.unique,
        primary: index.primary,
        size: formatBytes(index.sizeBytes),
        sizeBytes: index.sizeBytes,
        scans: index.scans,
        definition: index.definition,
      })),
      unusedIndexes: unused.map((index) => index.name),
      ...(table.indexes.length === 0 ? { note: 'This table has no indexes.' } : {}),
    };
  },
});

export const describeRelations = defineTool({
  inputSchema: z.strictObject({ table: tableName }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    return {
      table: table.qualifiedName,
      references: table.foreignKeys.map(foreignKey),
      referencedBy: table.referencedBy.map(foreignKey),
      joins: [
        ...table.foreignKeys.map(
          (fk) =>
            `JOIN ${fk.toTable} ON ${fk.fromColumns.map((column, index) => `${fk.fromTable}.${column} = ${fk.toTable}.${fk.toColumns[index]}`).join(' AND ')}`,
        ),
        ...table.referencedBy.map(
          (fk) =>
            `JOIN ${fk.fromTable} ON ${fk.fromColumns.map((column, index) => `${fk.fromTable}.${column} = ${fk.toTable}.${fk.toColumns[index]}`).join(' AND ')}`,
        ),
      ],
    };
  },
});
