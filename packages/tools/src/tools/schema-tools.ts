// Silent tools over the schema cache: they never read table data.
import type { ForeignKeyInfo, TableInfo } from '@toolrow/datasource';
import { z } from 'zod';
import { capList } from '../bounds.ts';
import { limitsOf } from '../context.ts';
import { defineTool } from '../define.ts';
import { columnName, limitField, tableName, textField } from '../schemas.ts';

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
    const connections = await ctx.state.connections.list();
    return {
      connections: connections.map((connection) => ({
        name: connection.name,
        engine: connection.engine,
        description: connection.description,
        active: connection.active,
      })),
    };
  },
});

export const listTables = defineTool({
  inputSchema: z.strictObject({
    schema: textField(200).optional().describe('Only tables of this schema (default: all).'),
  }),
  async execute(input, ctx) {
    const snapshot = await ctx.source.schema.get();
    const tables = snapshot.tables.filter(
      (table) => input.schema === undefined || table.schema.toLowerCase() === input.schema.toLowerCase(),
    );
    const { items, truncated } = capList(tables, limitsOf(ctx).maxRows);
    return {
      tables: items.map((table) => ({
        name: table.qualifiedName,
        kind: table.kind,
        rowEstimate: table.rowEstimate,
        columns: columnSummary(table),
      })),
      truncated,
      ...(tables.length === 0
        ? {
            note:
              input.schema === undefined
                ? 'The database has no user tables yet (the user can run `toolrow db seed` for a sample shop).'
                : `No tables in schema '${input.schema}'. Schemas with tables: ${[...new Set(snapshot.tables.map((table) => table.schema))].join(', ') || 'none'}.`,
          }
        : {}),
    };
  },
});

export const describeTable = defineTool({
  inputSchema: z.strictObject({ table: tableName }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    return {
      table: table.qualifiedName,
      kind: table.kind,
      ...(table.comment ? { comment: table.comment } : {}),
      rowEstimate: table.rowEstimate,
      primaryKey: table.primaryKey,
      columns: table.columns.map((column) => ({
        name: column.name,
        type: column.type,
        nullable: column.nullable,
        ...(column.default !== null ? { default: column.default } : {}),
        ...(column.primaryKey ? { primaryKey: true } : {}),
        ...(column.comment ? { comment: column.comment } : {}),
      })),
      indexes: table.indexes.map((index) => ({
        name: index.name,
        columns: index.columns,
        unique: index.unique,
      })),
      foreignKeys: table.foreignKeys.map(foreignKey),
      referencedBy: table.referencedBy.map(foreignKey),
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
    const { items, truncated } = capList(matches, input.limit ?? 50);
    return {
      matches: items.map((match) => ({
        table: match.table,
        column: match.column.name,
        type: match.column.type,
      })),
      truncated,
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
