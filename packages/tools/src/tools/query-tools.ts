// Query tools. All three share the connection's statement check; runQuery alone reads table data.
import type { ToolName } from '@toolrow/catalog';
import {
  type CheckedStatement,
  isDataSourceError,
  type QueryPlan,
  type ReadQueryResult,
  unknownNameHint,
} from '@toolrow/datasource';
import { z } from 'zod';
import { boundRows, clipText } from '../bounds.ts';
import { fitRows, RESULT_TOKEN_BUDGET } from '../budget.ts';
import { limitsOf, ownRecords, readOptions, type ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { limitField, sqlText } from '../schemas.ts';
import { MODEL_ADVICE } from '../statement-advice.ts';

// Named in advice; typed so a renamed row breaks the build here.
const EXPORT_TOOL: ToolName = 'startExport';

/** One value bigger than this (as text) never leaves the server: it comes back as null, with a note. */
const MAX_VALUE_BYTES = 64 * 1024;

/** What a read may bring into memory: far more than a model sees, far less than a runaway result. */
function readBytesOf(limits: { maxOutputChars: number }): number {
  return Math.max(1024 * 1024, limits.maxOutputChars * 16);
}

/**
 * The statement check of the connection's language (the first read layer, the engine's own),
 * with a refusal's advice in the tools' words. Returns what to send.
 */
export async function guardStatement(
  tool: string,
  text: string,
  ctx: ToolContext,
  options: { names?: boolean } = {},
): Promise<CheckedStatement> {
  try {
    return await ctx.source.queries.check(text, { advice: MODEL_ADVICE, ...options });
  } catch (error) {
    if (isDataSourceError(error)) throw new ToolError('refused', tool, error.message, { cause: error });
    throw error;
  }
}

function databaseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const hint = (error as { hint?: string }).hint;
  return hint ? `${message} (hint: ${hint})` : message;
}

function throwIfAborted(tool: string, ctx: ToolContext): void {
  if (ctx.signal?.aborted) throw new ToolError('aborted', tool, `${tool} was cancelled before it finished.`);
}

/** The read options every tool read takes: its timeout and the call's signal. */

/** A read stopped because the call was aborted: not the query's fault, so not 'failed'. */
function abortedRead(tool: string, error: unknown): ToolError | undefined {
  if (!isDataSourceError(error, 'aborted')) return undefined;
  return new ToolError('aborted', tool, error.message, { cause: error });
}

export const validateQuery = defineTool({
  inputSchema: z.strictObject({ sql: sqlText }),
  async execute(input, ctx) {
    let checked: CheckedStatement;
    try {
      checked = await guardStatement('validateQuery', input.sql, ctx, { names: true });
    } catch (error) {
      if (error instanceof ToolError && error.code === 'refused')
        return { ok: false as const, problems: [error.message] };
      throw error;
    }
    if (checked.problems && checked.problems.length > 0)
      return { ok: false as const, problems: checked.problems };
    const tables: string[] = [];
    for (const name of checked.tables) {
      try {
        tables.push((await ctx.source.schema.resolveTable(name)).qualifiedName);
      } catch (error) {
        if (isDataSourceError(error)) return { ok: false as const, problems: [error.message] };
        throw error;
      }
    }
    // Planning (nothing runs) catches what the names cannot: types, functions, ambiguity.
    let plan: QueryPlan;
    try {
      plan = await ctx.source.queries.plan(checked.statement, readOptions(ctx));
    } catch (error) {
      const aborted = abortedRead('validateQuery', error);
      if (aborted) throw aborted;
      return {
        ok: false as const,
        problems: [`${ctx.source.description} rejects it: ${databaseMessage(error)}`],
      };
    }
    return {
      ok: true as const,
      tables: [...new Set(tables)],
      ...(plan.warnings && plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
    };
  },
});

export const explainQuery = defineTool({
  inputSchema: z.strictObject({ sql: sqlText }),
  async execute(input, ctx) {
    const statement = await guardStatement('explainQuery', input.sql, ctx);
    let plan: QueryPlan;
    try {
      plan = await ctx.source.queries.plan(statement.statement, readOptions(ctx));
    } catch (error) {
      const aborted = abortedRead('explainQuery', error);
      if (aborted) throw aborted;
      throw new ToolError(
        'failed',
        'explainQuery',
        `${ctx.source.description} could not plan the query: ${databaseMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    const { lines } = plan;
    const maxLines = 200;
    return {
      plan: clipText(lines.slice(0, maxLines).join('\n'), limitsOf(ctx).maxOutputChars),
      ...(plan.totalCost !== undefined ? { totalCost: plan.totalCost } : {}),
      ...(plan.estimatedRows !== undefined ? { estimatedRows: plan.estimatedRows } : {}),
      ...(plan.estimatedItemsRead !== undefined ? { estimatedItemsRead: plan.estimatedItemsRead } : {}),
      ...(plan.warnings && plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
      truncated: lines.length > maxLines,
      note: plan.note ?? 'Estimated plan only: nothing was run.',
    };
  },
});

/**
 * The read path every tool that reads table data takes (runQuery, drawChart): the statement check,
 * the engine's read with its bounds and time limit, the query history, and refusals in the tools'
 * words. Returns the checked statement and the engine's result.
 */
export async function readForTool(
  tool: ToolName,
  sql: string,
  ctx: ToolContext,
  bounds: { maxRows: number },
): Promise<{ statement: CheckedStatement; result: ReadQueryResult }> {
  const limits = limitsOf(ctx);
  const statement = await guardStatement(tool, sql, ctx);
  throwIfAborted(tool, ctx);
  const started = performance.now();
  let result: ReadQueryResult;
  try {
    result = await ctx.source.queries.run(statement.statement, {
      maxRows: bounds.maxRows,
      maxBytes: readBytesOf(limits),
      maxValueBytes: MAX_VALUE_BYTES,
      ...readOptions(ctx),
    });
  } catch (error) {
    const message = databaseMessage(error);
    await ctx.state.history.add({
      profile: ctx.profile,
      actor: ctx.actor,
      sql: statement.statement,
      rowCount: null,
      durationMs: Math.round(performance.now() - started),
      error: message,
    });
    const aborted = abortedRead(tool, error);
    if (aborted) throw aborted;
    // Past what one statement may read: the engine's message says what would pin it.
    if (isDataSourceError(error, 'too-large'))
      throw new ToolError('failed', tool, error.message, { cause: error });
    // A statement timeout (PostgreSQL's 57014, or the PGlite worker stopping a runaway read) is
    // about the query's cost, not its names: say how to make it cheaper.
    if (isDataSourceError(error, 'timeout') || (error as { code?: unknown } | null)?.code === '57014') {
      throw new ToolError(
        'failed',
        tool,
        `The query ran longer than ${limits.statementTimeoutMs / 1000} s and was stopped. Make it cheaper: filter with WHERE, join on keys, aggregate or LIMIT early; explainQuery shows the plan.`,
        { cause: error },
      );
    }
    throw new ToolError(
      'failed',
      tool,
      `The query failed: ${message.replace(/\.$/, '')}.${unknownNameHint(message, (await ctx.source.schema.get()).tables)} Check table and column names with describeTable, or validateQuery first.`,
      { cause: error },
    );
  }
  await ctx.state.history.add({
    profile: ctx.profile,
    actor: ctx.actor,
    sql: statement.statement,
    rowCount: result.rows.length,
    durationMs: Math.round(performance.now() - started),
    error: null,
  });
  return { statement, result };
}

export const runQuery = defineTool({
  inputSchema: z.strictObject({
    sql: sqlText,
    limit: limitField(50, 500),
  }),
  async execute(input, ctx) {
    const limits = limitsOf(ctx);
    const maxRows = Math.min(input.limit ?? limits.defaultRows, limits.maxRows);
    const { result } = await readForTool('runQuery', input.sql, ctx, { maxRows });
    // The token budget below bounds the output; here values are only made JSON-safe and clipped.
    const shaped = boundRows(
      result.rows,
      { ...limits, maxOutputChars: Number.POSITIVE_INFINITY },
      result.truncated,
    );
    const names = result.fields.map((field) => field.name);
    // Within the token budget: fewer rows, or for a wide result fewer columns, each named below.
    const fitted = fitRows([...new Set(names)], shaped.rows, RESULT_TOKEN_BUDGET - 600);
    const bounded = {
      rows: fitted.rows,
      truncated: shaped.truncated || fitted.droppedRows > 0 || fitted.droppedColumns.length > 0,
    };
    const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
    const notes: string[] = [];
    if (result.truncatedBy === 'bytes') {
      notes.push(
        `The result was cut after ${result.rows.length} rows: it passed ${Math.round(readBytesOf(limits) / 1024)} KiB as text. Select fewer or shorter columns (left(col, 200)), aggregate, or export the whole result with ${EXPORT_TOOL}.`,
      );
    } else if (result.truncatedBy === 'reads') {
      notes.push(
        `Only ${result.rows.length} rows were found before the read stopped. ${result.readStop ?? 'The engine stopped reading before the end'}. Narrow it with an equality on the partition key (explainQuery says whether it will Query or Scan), or export the whole result with ${EXPORT_TOOL}.`,
      );
    } else if (bounded.truncated && fitted.droppedColumns.length === 0) {
      notes.push(
        `Only the first ${bounded.rows.length} rows are shown. Aggregate or narrow the query (LIMIT/OFFSET pages it), or export the whole result with ${EXPORT_TOOL}.`,
      );
    }
    if (fitted.droppedColumns.length > 0) {
      const kept = names.length - fitted.droppedColumns.length;
      const listed = fitted.droppedColumns.slice(0, 40).join(', ');
      const more = fitted.droppedColumns.length - 40;
      notes.push(
        `The result has ${names.length} columns; only the first ${kept} are shown, to stay within ${RESULT_TOKEN_BUDGET} tokens. Left out: ${listed}${more > 0 ? `, and ${more} more (describeTable lists them)` : ''}. Select the columns you need by name instead of *, a few at a time.`,
      );
    }
    if (result.oversized && result.oversized.length > 0) {
      const columns = [...new Set(result.oversized.map((entry) => entry.column))];
      const largest = Math.max(...result.oversized.map((entry) => entry.bytes));
      notes.push(
        `${result.oversized.length} value${result.oversized.length === 1 ? '' : 's'} in ${columns.join(', ')} ${result.oversized.length === 1 ? 'was' : 'were'} over ${MAX_VALUE_BYTES / 1024} KiB (up to ${Math.round(largest / 1024)} KiB) and ${result.oversized.length === 1 ? 'is' : 'are'} shown as null. Select left(${columns[0]}, 1000) or octet_length(${columns[0]}) instead.`,
      );
    }
    if (duplicates.length > 0) {
      notes.push(
        `Several columns are named ${[...new Set(duplicates)].join(', ')}; give them distinct aliases (AS …) to see each.`,
      );
    }
    return {
      columns:
        fitted.droppedColumns.length > 0
          ? names.slice(0, names.length - fitted.droppedColumns.length)
          : names,
      ...(fitted.droppedColumns.length > 0 ? { columnCount: names.length } : {}),
      rows: bounded.rows,
      rowCount: bounded.rows.length,
      truncated: bounded.truncated,
      // How each table was read, where the engine says (DynamoDB: GetItem, Query on which index, Scan).
      ...(result.reads ? { reads: result.reads } : {}),
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
    };
  },
});

export const listQueryHistory = defineTool({
  inputSchema: z.strictObject({ limit: limitField(20, 200) }),
  async execute(input, ctx) {
    const limit = input.limit ?? 20;
    const entries = await ctx.state.history.list({
      limit: limit + 1,
      profile: ctx.profile,
      ...ownRecords(ctx),
    });
    const maxChars = limitsOf(ctx).maxValueChars * 4;
    return {
      entries: entries.slice(0, limit).map((entry) => ({
        at: entry.createdAt.toISOString(),
        sql: clipText(entry.sql, maxChars),
        by: entry.actor,
        rowCount: entry.rowCount,
        durationMs: entry.durationMs,
        ...(entry.error ? { error: entry.error } : {}),
      })),
      truncated: entries.length > limit,
    };
  },
});
