import { parseArgs } from 'node:util';
import { type DataSource, featureOf, type SeedProgress, type SeedResult } from '@toolrow/datasource';
import { sampleCounts } from '@toolrow/datasource-utils';
import { installedEngines } from '@toolrow/engines';
import { openConnectionData, resolveConnectionOptions } from '@toolrow/state';
import { openToolrowWaiting } from '../app-client.ts';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { formatTable, toJson } from '../format.ts';

const USAGE = `Usage: toolrow db <subcommand> [options]

  seed [--orders N] [--reset] [--seed S] [--json]
        Create the sample shop (customers, products, orders, order_items) with N orders
        (default 50000). Deterministic: the same N and seed give the same rows (dates lead up
        to today). Re-running with the same N does nothing; with another N, or to start over,
        pass --reset, which drops and re-creates the four tables.
  info [--json]
        Where your data lives (PGlite data dir or PostgreSQL server), where commits are written,
        where Toolrow keeps its own state, the exports folder, and your tables with row
        estimates and sizes, and the layers that keep agent and user SQL from writing.
  setup-roles [--role NAME] [--grantee USER] [--no-harden] [--apply]
        Print (or, with --apply, run) the SQL that creates the reader role on a PostgreSQL
        server: a role with SELECT on your schemas and nothing else, which Toolrow's reads then
        run as (SET LOCAL ROLE). --grantee is the user in DATABASE_URL by default; the hardening
        takes temp tables, large objects and session functions from PUBLIC (every role in the
        database), --no-harden leaves it out. --apply runs it through TOOLROW_COMMIT_URL when set,
        else DATABASE_URL: that user needs the rights to create roles and grant on your tables.
        On embedded PGlite Toolrow sets the role up itself.

Your data is PGlite in TOOLROW_DATA_DIR (default ./.toolrow), or the PostgreSQL server in
DATABASE_URL when it is set; commits go through TOOLROW_COMMIT_URL when set. Toolrow's own state
(tokens, audit log, conversations, staging) is SQLite in TOOLROW_DATA_DIR/state.db, or the server in
TOOLROW_STATE_URL — never your database.`;

/** The data of the connection the command runs on (--connection, DATABASE_URL, the default, the sample). */
async function open(io: CommandIo): Promise<DataSource> {
  return (await openConnectionData({ env: io.env, cwd: io.cwd })).source;
}

function parse(args: string[], options: NonNullable<Parameters<typeof parseArgs>[0]>['options']) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const number = (value: number) => value.toLocaleString('en-US');

/**
 * A progress bar on stderr: redrawn in place on a terminal, a few plain lines otherwise (logs, CI).
 * The CommandIo has no TTY flag, so redraw only when the command writes to this very process's terminal.
 */
function progressBar(
  io: CommandIo,
  total: number,
): { update(done: number, label: string): void; end(): void } {
  const tty = io.env === process.env && process.stderr.isTTY === true;
  const width = 30;
  let lastStep = -1;
  let drawn = false;
  return {
    update(done, label) {
      const ratio = total === 0 ? 1 : Math.min(1, done / total);
      const percent = Math.floor(ratio * 100);
      if (tty) {
        const filled = Math.round(ratio * width);
        io.stderr(
          `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${label}\u001b[K`,
        );
        drawn = true;
        return;
      }
      const step = Math.floor(percent / 25);
      if (step > lastStep) {
        lastStep = step;
        io.stderr(`seeding: ${percent}% (${label})\n`);
      }
    },
    end() {
      if (tty && drawn) io.stderr('\n');
    },
  };
}

async function seed(args: string[], io: CommandIo): Promise<number> {
  const values = parse(args, {
    orders: { type: 'string' },
    reset: { type: 'boolean' },
    seed: { type: 'string' },
    json: { type: 'boolean' },
  });
  const orders = values.orders === undefined ? 50_000 : Number(values.orders);
  if (!Number.isInteger(orders) || orders < 1 || orders > 10_000_000) {
    throw new UsageError(`--orders must be a whole number from 1 to 10000000, got '${values.orders}'.`);
  }
  const seedValue = values.seed === undefined ? 42 : Number(values.seed);
  if (!Number.isInteger(seedValue))
    throw new UsageError(`--seed must be a whole number, got '${values.seed}'.`);
  const counts = sampleCounts(orders);
  const total = counts.customers + counts.products + counts.orders;
  const ds = await open(io);
  let result: SeedResult;
  try {
    const bar = progressBar(io, total);
    const offsets: Record<string, number> = {
      customers: 0,
      products: counts.customers,
      orders: counts.customers + counts.products,
    };
    try {
      result = await featureOf(
        ds,
        'seed',
      )({
        orders,
        seed: seedValue,
        reset: values.reset === true,
        onProgress: (progress: SeedProgress) =>
          bar.update(
            (offsets[progress.table] ?? 0) + progress.done,
            `${progress.table} ${number(progress.done)}/${number(progress.total)}`,
          ),
      });
    } finally {
      bar.end();
    }
  } finally {
    await ds.close();
  }
  if (values.json) {
    io.stdout(toJson({ database: ds.description, ...result }));
    return 0;
  }
  const c = result.counts;
  const summary = `${number(c.customers)} customers, ${number(c.products)} products, ${number(c.orders)} orders, ${number(c.order_items)} order items`;
  io.stdout(
    result.alreadySeeded
      ? `The sample shop is already in ${ds.description} (${summary}); nothing written. Use --reset to re-create it.\n`
      : `Seeded the sample shop into ${ds.description}: ${summary} in ${(result.durationMs / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

async function info(args: string[], io: CommandIo): Promise<number> {
  const values = parse(args, { json: { type: 'boolean' } });
  const toolrow = await openToolrowWaiting(io);
  const { source, state } = toolrow;
  try {
    const snapshot = await source.schema.get();
    const version = await state.db.q
      .selectFrom('schema_migrations')
      .select((eb) => eb.fn.max('version').as('version'))
      .executeTakeFirst();
    // What the engine says a person should know of this database (PostgreSQL: an old state schema).
    const notes = (await source.connectionNotes?.()) ?? [];
    const staged = (await state.staging.list()).length;
    const report = {
      engine: source.driver,
      database: source.description,
      commits: source.changes?.writer.description ?? `none: ${source.engine} connections are read-only here`,
      commitsThrough: source.changes?.writer.source ?? 'none',
      state: state.description,
      dataDir: state.dataDir,
      exportsDir: state.exports.dir,
      appStateVersion: Number(version?.version ?? 0),
      notes,
      stagedChanges: staged,
      readLayers: await source.readLayers(),
      tables: snapshot.tables.map((table) => ({
        table: table.qualifiedName,
        kind: table.kind,
        rowEstimate: table.rowEstimate,
        totalBytes: table.totalBytes,
        columns: table.columns.length,
      })),
    };
    if (values.json) {
      io.stdout(toJson(report));
      return 0;
    }
    const lines = [
      `your data:     ${report.database}`,
      `commits:       ${report.commits}${report.commitsThrough === 'TOOLROW_COMMIT_URL' ? ' (TOOLROW_COMMIT_URL)' : ''}`,
      `toolrow state: ${report.state} (version ${report.appStateVersion})`,
      // The data dir matters when something embedded lives there; the exports line says the rest.
      ...(installedEngines.driver(source.driver)?.driver.embedded || state.db.dialect === 'sqlite'
        ? [`data dir:      ${report.dataDir}`]
        : []),
      `exports:       ${report.exportsDir}`,
      ...report.notes.map((note) => `note:          ${note}`),
      `staged:        ${staged} change${staged === 1 ? '' : 's'}${staged > 0 ? ' (toolrow staging list)' : ''}`,
      '',
      `${source.queries.language.name} from the agent and the workbench is read-only by each of these layers${report.readLayers.some((layer) => /statement check/.test(layer.layer)) ? '' : ' (and the statement check)'}:`,
      ...report.readLayers.map(
        (layer) => `  ${layer.active ? '[on] ' : '[off]'} ${layer.layer}: ${layer.detail}`,
      ),
      '',
      report.tables.length === 0
        ? 'No tables yet. Run `toolrow db seed` for a sample shop.'
        : formatTable(
            ['table', 'kind', 'rows (est.)', 'size', 'columns'],
            report.tables.map((table) => [
              table.table,
              table.kind,
              number(table.rowEstimate),
              bytes(table.totalBytes),
              String(table.columns),
            ]),
          ),
    ];
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await toolrow.close();
  }
}

async function setupRoles(args: string[], io: CommandIo): Promise<number> {
  const values = parse(args, {
    role: { type: 'string' },
    grantee: { type: 'string' },
    'no-harden': { type: 'boolean' },
    apply: { type: 'boolean' },
  });
  // The read layer a user sets up outside Toolrow is the engine's to describe: a reader role, IAM policies.
  const { data } = await resolveConnectionOptions({ env: io.env, cwd: io.cwd });
  const url = data.url ?? (io.env.DATABASE_URL?.trim() || undefined);
  const engine = url === undefined ? installedEngines.fallback : installedEngines.forUrl(url, 'DATABASE_URL');
  if (!engine.readLayerSetup) {
    io.stdout(
      `A ${engine.label} connection has no read-only layer to set up outside Toolrow. Nothing to do.\n`,
    );
    return 0;
  }
  const setup = await engine.readLayerSetup({ ...data, env: data.env ?? io.env, cwd: io.cwd, flags: values });
  io.stdout(setup.text);
  if (setup.advice) io.stderr(`${setup.advice}\n`);
  return 0;
}

export const dbCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === 'seed') return seed(rest, io);
    if (sub === 'info') return info(rest, io);
    if (sub === 'setup-roles') return setupRoles(rest, io);
    throw new UsageError(
      sub
        ? `Unknown db subcommand '${sub}'; use seed, info or setup-roles.`
        : 'Name a db subcommand: seed, info or setup-roles.',
    );
  },
};
