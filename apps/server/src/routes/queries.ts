// The SQL workbench: the connection's statement check, then a capped read; plans.
import { type DataSource, isDataSourceError, type QueryRunner, unknownNameHint } from '@toolrow/datasource';
import { Hono } from 'hono';
import { z } from 'zod';
import { nonEmpty, readBody } from '../body.ts';
import { badRequest, HttpError } from '../errors.ts';
import type { ServerEnv } from '../request-connection.ts';
import { jsonRow } from '../wire.ts';

import type { RouteContext } from './context.ts';

/** The most a person may confirm for one workbench read (past it: an export). */
const MAX_CONFIRMED_ITEMS = 10_000_000;

export function queryRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { checkStatement } = ctx;
  const app = new Hono<ServerEnv>();

  app.post('/api/query', async (c) => {
    const { source, state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        sql: nonEmpty().describe('one SELECT statement'),
        language: z
          .string()
          .optional()
          .describe("the connection's language to read it in (default its first)"),
        maxItemsRead: z
          .number()
          .int()
          .min(1)
          .max(MAX_CONFIRMED_ITEMS)
          .optional()
          .describe(
            'the items this one read may evaluate, when the person confirmed a read past the connection’s bound',
          ),
      }),
    );
    const runner = runnerFor(source, body.language);
    const statement = await checkStatement(runner, body.sql);
    const started = performance.now();
    try {
      const result = await runner.run(statement.statement, {
        maxRows: WORKBENCH_MAX_ROWS,
        timeoutMs: WORKBENCH_TIMEOUT_MS,
        ...(body.maxItemsRead !== undefined ? { maxItemsRead: body.maxItemsRead } : {}),
      });
      const elapsedMs = Math.round(performance.now() - started);
      await state.history.add({
        profile,
        actor: 'user',
        sql: statement.statement,
        rowCount: result.rows.length,
        durationMs: elapsedMs,
        error: null,
      });
      return c.json({
        columns: result.fields.map((field) => field.name),
        rows: result.rows.map(jsonRow),
        rowCount: result.rows.length,
        truncated: result.truncated,
        elapsedMs,
        // How each table was read (DynamoDB: GetItem, Query on which index, or Scan, and items read).
        ...(result.reads ? { reads: result.reads } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await state.history.add({
        profile,
        actor: 'user',
        sql: statement.statement,
        rowCount: null,
        durationMs: Math.round(performance.now() - started),
        error: message,
      });
      if (isDataSourceError(error)) throw error;
      throw new HttpError(
        400,
        'query-failed',
        `The query failed: ${message}`,
        `${unknownNameHint(message, (await source.schema.get()).tables).trim() || 'Check the table and column names'} (the table list on the left has every table; a header shows each column).`,
      );
    }
  });

  // The plan of a workbench statement, before anything runs.
  app.post('/api/query/plan', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ sql: nonEmpty(), language: z.string().optional() }));
    const runner = runnerFor(source, body.language);
    const statement = await checkStatement(runner, body.sql);
    const plan = await runner.plan(statement.statement, { timeoutMs: WORKBENCH_TIMEOUT_MS });
    return c.json({ lines: plan.lines, ...(plan.note ? { note: plan.note } : {}) });
  });
  return app;
}

/** The runner of the language a workbench request names (default the connection's first). */
function runnerFor(source: DataSource, language: string | undefined): QueryRunner {
  if (language === undefined) return source.queries;
  const runners = [source.queries, ...(source.queries.modes ?? [])];
  const found = runners.find((runner) => runner.language.name.toLowerCase() === language.toLowerCase());
  if (!found)
    throw badRequest(
      `This connection reads ${runners.map((runner) => runner.language.name).join(' or ')}, not ${language}.`,
    );
  return found;
}

const WORKBENCH_MAX_ROWS = 1000;

const WORKBENCH_TIMEOUT_MS = 30_000;
