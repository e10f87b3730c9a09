// Tables: the list, one table's columns, pages of rows, counts, one row.
import { DEFAULT_PROFILE, isDataSourceError } from '@toolrow/datasource';
import type { Filter } from '@toolrow/desktop/wire';
import { Hono } from 'hono';
import { z } from 'zod';
import { readBody, wireFilter, wireSort } from '../body.ts';
import type { ServerEnv } from '../request-connection.ts';
import { forFilterBar, jsonRow, toDsFilter, toDsSort, toTableSummary, toWireTableInfo } from '../wire.ts';
import type { RouteContext } from './context.ts';
import { primaryKey } from './shared.ts';

export function tableRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  // ?fresh=1 (the app's ↻ and its first load) reads the catalog again: a table made by another
  // tool, or by `db seed` while the app runs, shows up, and row counts are current.
  app.get('/api/tables', async (c) => {
    const { source, profile } = c.var.connection;
    const fresh = c.req.query('fresh') === '1';
    const snapshot = await (fresh ? source.schema.refresh() : source.schema.get());
    const tables = snapshot.tables.map(toTableSummary);
    if (tables.length > 0) return c.json({ tables });
    // No tables: what the connection knows of why (DynamoDB: the key it signs with, and that
    // DynamoDB Local keeps one database per key), and the seed command for this very connection.
    const notes = (await source.connectionNotes?.().catch(() => [])) ?? [];
    const named = profile === DEFAULT_PROFILE ? '' : ` --connection ${profile}`;
    const fromEnv = profile === DEFAULT_PROFILE && ctx.env.DATABASE_URL?.trim();
    return c.json({
      tables,
      empty: {
        notes,
        seed: `npx toolrow${named} db seed${fromEnv ? ' (with the DATABASE_URL the app was started with)' : ''}`,
      },
    });
  });

  app.get('/api/tables/:table', async (c) => {
    const { source } = c.var.connection;
    const table = await source.schema.resolveTable(c.req.param('table'));
    return c.json(toWireTableInfo(table, source.rows.filterOps));
  });

  app.post('/api/tables/:table/rows', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        filter: wireFilter.optional(),
        sort: wireSort.optional(),
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
        limit: z.number().int().min(1).max(ROWS_PAGE_MAX).default(200),
      }),
    );
    const { offset, limit } = body;
    const filter = toDsFilter(body.filter as Filter | undefined);
    const select = (sort: ReturnType<typeof toDsSort>) =>
      source.rows
        .select(c.req.param('table'), { ...(filter ? { filter } : {}), sort, offset, limit })
        .catch((error: unknown) => {
          throw forFilterBar(error, body.filter as Filter | undefined);
        });
    // A sort the engine cannot serve under this filter (DynamoDB reads in key order) is dropped,
    // saying why, rather than leaving the grid empty: the rows are still the filter's.
    let sortDropped: string | undefined;
    const page = await select(toDsSort(body.sort)).catch((error: unknown) => {
      if (!isDataSourceError(error, 'invalid-sort')) throw error;
      sortDropped = error.message;
      return select([]);
    });
    return c.json({
      ...(sortDropped ? { sortDropped } : {}),
      ...(page.sortable ? { sortable: page.sortable } : {}),
      rows: page.rows.map(jsonRow),
      offset,
      hasMore: page.hasMore,
      // How the engine read it, where it says (DynamoDB: Query on which key, or Scan).
      ...(page.access ? { access: page.access } : {}),
      // Values over the cap come back null and are named here; a page over its byte cap stops early.
      ...(page.truncated ? { truncated: true } : {}),
      ...(page.oversized ? { oversized: page.oversized } : {}),
    });
  });

  app.post('/api/tables/:table/count', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ filter: wireFilter.optional() }));
    const count = await source.rows
      .count(c.req.param('table'), toDsFilter(body.filter as Filter | undefined))
      .catch((error: unknown) => {
        throw forFilterBar(error, body.filter as Filter | undefined);
      });
    return c.json({ count });
  });

  app.post('/api/tables/:table/row', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ key: primaryKey }));
    const row = await source.rows.get(c.req.param('table'), body.key);
    return c.json({ row: row ? jsonRow(row) : null });
  });
  return app;
}

const ROWS_PAGE_MAX = 1000;
