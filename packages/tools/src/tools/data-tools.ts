// Gated reads by key and filter, the stage tools (staging only, never the table) and exports.
import { filterText, type ToolName } from '@toolrow/catalog';
import type { ExportSource } from '@toolrow/datasource';
import type { StagedChange } from '@toolrow/state';
import { z } from 'zod';
import { modelRow, modelValue } from '../bounds.ts';
import { limitsOf, readOptions, signalOf, type ToolContext } from '../context.ts';
import { defineProposable, defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { checkFilter, checkSort, toFilter } from '../filter-input.ts';
import {
  exportFormat,
  filterField,
  rowKey,
  rowValues,
  sortField,
  sqlText,
  tableName,
  textField,
  within,
} from '../schemas.ts';
import { exportSummary } from './app-tools.ts';
import { guardStatement } from './query-tools.ts';

// Named in advice; typed so a renamed row breaks the build here.
const STATUS_TOOL: ToolName = 'getExportStatus';

function keyText(key: unknown): string {
  if (key !== null && typeof key === 'object') {
    return Object.entries(key)
      .map(([column, value]) => `${column} = ${JSON.stringify(value)}`)
      .join(', ');
  }
  return JSON.stringify(key);
}

export const getRow = defineTool({
  inputSchema: z.strictObject({ table: tableName, key: rowKey }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const row = await ctx.source.rows.get(table.qualifiedName, input.key, readOptions(ctx));
    if (row === undefined) {
      throw new ToolError(
        'not-found',
        'getRow',
        `No row in ${table.qualifiedName} with ${keyText(input.key)}. Check the key (primary key: ${table.primaryKey.join(', ') || 'none'}).`,
      );
    }
    return { table: table.qualifiedName, row: modelRow(row, limitsOf(ctx).maxValueChars * 4) };
  },
});

export const countRows = defineTool({
  inputSchema: z.strictObject({
    table: tableName,
    filter: filterField('Count only rows matching every item', { guide: true }).optional(),
  }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const filter = checkFilter('countRows', table, input.filter, 'filter', ctx.source.rows.checkValue);
    const count = await ctx.source.rows.count(table.qualifiedName, filter, readOptions(ctx));
    return {
      table: table.qualifiedName,
      count,
      ...(filter ? { filter: filterText(filter) } : {}),
    };
  },
});

// ── Staging ──────────────────────────────────────────────────────────────────────────────────

const STAGED_NOTE =
  'Staged only: the table is unchanged until the user reviews and commits (staging panel or `toolrow staging commit`). You cannot commit.';

function stagedResult(table: string, changes: readonly StagedChange[], ctx: ToolContext) {
  const maxChars = limitsOf(ctx).maxValueChars;
  return {
    table,
    staged: changes.length,
    changes: changes.slice(0, 50).map((change) => ({
      id: change.id,
      kind: change.kind,
      key: change.key === null ? null : modelValue(change.key, maxChars),
    })),
    note: STAGED_NOTE,
  };
}

export const stageInsertRows = defineTool({
  inputSchema: z.strictObject({
    table: tableName,
    rows: within(z.array(rowValues), 1, 1000).describe(
      'The new rows; omit columns the database fills (ids, defaults).',
    ),
  }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const changes = await ctx.state.staging.stageInsert(table.qualifiedName, input.rows, {
      actor: ctx.actor,
      profile: ctx.profile,
      person: ctx.person ?? null,
    });
    return stagedResult(table.qualifiedName, changes, ctx);
  },
});

export const stageUpdateRows = defineTool({
  inputSchema: z.strictObject({
    table: tableName,
    updates: within(
      z.array(
        z.strictObject({
          key: rowKey,
          values: rowValues.describe('Only the columns to change: column name → new value.'),
          seen: rowValues.optional().describe('As read; if changed since, nothing is staged.'),
        }),
      ),
      1,
      1000,
    ).describe('One entry per row to change.'),
  }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const changes = await ctx.state.staging.stageUpdate(table.qualifiedName, input.updates, {
      actor: ctx.actor,
      profile: ctx.profile,
      person: ctx.person ?? null,
    });
    return stagedResult(table.qualifiedName, changes, ctx);
  },
});

export const stageDeleteRows = defineTool({
  inputSchema: z.strictObject({
    table: tableName,
    keys: within(z.array(rowKey), 1, 1000).describe('Primary keys of the rows to delete.'),
  }),
  async execute(input, ctx) {
    const table = await ctx.source.schema.resolveTable(input.table);
    const changes = await ctx.state.staging.stageDelete(table.qualifiedName, input.keys, {
      actor: ctx.actor,
      profile: ctx.profile,
      person: ctx.person ?? null,
    });
    return stagedResult(table.qualifiedName, changes, ctx);
  },
});

// ── Export ───────────────────────────────────────────────────────────────────────────────────

const exportInput = z.strictObject({
  table: tableName.optional().describe('Export this table (give table or sql, not both).'),
  filter: filterField('With table: export only rows matching every item').optional(),
  sort: sortField('With table: row order in the file').optional(),
  columns: within(z.array(textField(200)), 1, 500)
    .optional()
    .describe('With table: only these columns (default: all).'),
  sql: sqlText.optional().describe('Export the result of this read-only SELECT instead of a table.'),
  format: exportFormat,
  path: textField(300)
    .optional()
    .describe('File name in the exports folder, e.g. "orders-may.csv" (default: generated).'),
});

async function prepareExport(input: z.output<typeof exportInput>, ctx: ToolContext) {
  if ((input.table === undefined) === (input.sql === undefined)) {
    throw new ToolError(
      'invalid-input',
      'startExport',
      'Give exactly one of `table` or `sql`: what to export.',
      {
        issues: [{ path: 'table', message: 'table or sql: give exactly one' }],
      },
    );
  }
  if (input.sql !== undefined) {
    if (input.filter?.length || input.sort?.length || input.columns) {
      throw new ToolError(
        'invalid-input',
        'startExport',
        'filter, sort and columns go with `table`; with `sql`, put them in the SELECT.',
        {
          issues: [{ path: 'sql', message: 'filter/sort/columns only go with table' }],
        },
      );
    }
    // The connection's own statement check, as runQuery's: the export engine checks again.
    const statement = await guardStatement('startExport', input.sql, ctx);
    if (input.path !== undefined) await ctx.state.exports.resolvePath(input.path);
    return { ...input, sql: statement.statement };
  }
  const table = await ctx.source.schema.resolveTable(input.table!);
  // Same checks the export engine makes, before anything starts.
  checkFilter('startExport', table, input.filter, 'filter', ctx.source.rows.checkValue);
  checkSort('startExport', table, input.sort);
  for (const column of input.columns ?? []) ctx.source.schema.resolveColumn(table, column);
  if (input.path !== undefined) await ctx.state.exports.resolvePath(input.path);
  return { ...input, table: table.qualifiedName };
}

export const startExport = defineProposable({
  inputSchema: exportInput,
  prepare: prepareExport,
  label(input) {
    const what = input.table
      ? `${input.table}${input.filter?.length ? ` where ${filterText(toFilter(input.filter))}` : ''}`
      : 'the query result';
    return `Export ${what} as ${input.format.toUpperCase()}${input.path ? ` to ${input.path}` : ''}`;
  },
  async execute(raw, ctx) {
    const input = await prepareExport(raw, ctx);
    const filter = toFilter(input.filter);
    const source: ExportSource =
      input.sql !== undefined
        ? { sql: input.sql }
        : {
            table: input.table!,
            ...(filter ? { filter } : {}),
            ...(input.sort ? { sort: input.sort } : {}),
            ...(input.columns ? { columns: input.columns } : {}),
          };
    const job = await ctx.state.exports.start({
      source,
      format: input.format,
      ...(input.path ? { path: input.path } : {}),
      actor: ctx.actor,
      profile: ctx.profile,
      // Stops the preparation only: once started, the export is a background job the user cancels.
      ...signalOf(ctx),
    });
    return {
      ...exportSummary(job),
      note: `The export runs in the background; follow it with ${STATUS_TOOL}({"id":"${job.id}"}).`,
    };
  },
});
