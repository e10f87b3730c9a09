// Exports: start one (a table or one SELECT), follow it, cancel it, download the file.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { EXPORT_FORMATS, type ExportFormat, type ExportSource } from '@toolrow/datasource';
import type { Filter } from '@toolrow/desktop/wire';
import { Hono } from 'hono';
import { z } from 'zod';
import { nonEmpty, readBody, wireFilter, wireSort } from '../body.ts';
import { HttpError } from '../errors.ts';
import type { ServerEnv } from '../request-connection.ts';
import { toDsFilter, toDsSort, toWireJob } from '../wire.ts';

import type { RouteContext } from './context.ts';

export function exportRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { checkStatement } = ctx;
  const app = new Hono<ServerEnv>();

  app.get('/api/exports', async (c) => {
    const { state, profile } = c.var.connection;
    const jobs = await state.exportJobs.list({ profile, limit: 50 });
    return c.json({ jobs: jobs.map(toWireJob) });
  });

  app.post('/api/exports', async (c) => {
    const { source, state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z
        .strictObject({
          table: nonEmpty().optional(),
          sql: nonEmpty().optional(),
          filter: wireFilter.optional(),
          sort: wireSort.optional(),
          format: z.enum(EXPORT_FORMATS).default('csv'),
        })
        .refine((value) => value.table !== undefined || value.sql !== undefined, {
          message: 'required (a table name, or sql) but missing',
          path: ['table'],
        }),
    );
    const format: ExportFormat = body.format;
    let exportSource: ExportSource;
    if (body.sql !== undefined) {
      const statement = await checkStatement(source.queries, body.sql);
      exportSource = { sql: statement.statement };
    } else {
      const table = await source.schema.resolveTable(body.table ?? '');
      const filter = toDsFilter(body.filter as Filter | undefined);
      const sort = toDsSort(body.sort);
      exportSource = {
        table: table.qualifiedName,
        ...(filter ? { filter } : {}),
        ...(sort.length ? { sort } : {}),
      };
    }
    const job = await state.exports.start({ source: exportSource, format, actor: 'user', profile });
    return c.json(toWireJob(job));
  });

  app.get('/api/exports/:id', async (c) =>
    c.json(toWireJob(await c.var.connection.state.exports.status(c.req.param('id')))),
  );

  // Stops a running export: the job says cancelled with the rows it wrote, and its partial file is removed.
  app.post('/api/exports/:id/cancel', async (c) =>
    c.json(toWireJob(await c.var.connection.state.exports.cancel(c.req.param('id')))),
  );

  app.get('/api/exports/:id/download', async (c) => {
    const { state } = c.var.connection;
    const job = await state.exports.status(c.req.param('id'));
    if (job.state !== 'done') {
      throw new HttpError(
        409,
        'export-not-done',
        `Export ${job.id} is ${job.state}, not done.`,
        'Wait for it to finish (see Exports).',
      );
    }
    // The file must still be inside the exports folder (the engine only writes there; this re-checks).
    const path = await state.exports.resolvePath(relative(state.exports.dir, job.path));
    if (!existsSync(path)) {
      throw new HttpError(
        410,
        'export-gone',
        `The file of export ${job.id} is gone from ${state.exports.dir}.`,
        'Export again.',
      );
    }
    const name = path.split(sep).pop() ?? 'export';
    return new Response(Readable.toWeb(createReadStream(path)) as ReadableStream, {
      headers: {
        'content-type': EXPORT_TYPES[job.format],
        'content-length': String(statSync(path).size),
        'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`,
      },
    });
  });
  return app;
}

const EXPORT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};
