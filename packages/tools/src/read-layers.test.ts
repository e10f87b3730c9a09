// Each protective layer of agent and user SQL, alone, against the attack corpus, through every
// SQL-taking tool: on PGlite and PostgreSQL, with standard_conforming_strings on and off.
//   guard   the parser guard, with the READ ONLY transaction and the reader role switched off;
//   engine  one statement over the extended protocol in a READ ONLY, rolled-back transaction with
//           pinned settings, the guard and the reader role switched off;
//   role    the reader role (SELECT only), the guard switched off and the transaction committing.
import { randomBytes } from 'node:crypto';
import type { DataSource } from '@toolrow/datasource';
import { checkReadOnlySql, hardeningSql, readerRoleSql, sqlDatabaseOf } from '@toolrow/postgres';
import { type ReadLayerSwitches, withoutSqlGuard, withReadLayers } from '@toolrow/postgres/testing';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment, testStores } from '@toolrow/state/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS, type Attack } from './attack-corpus.ts';
import { ToolError } from './errors.ts';
import { invokeTool } from './registry.ts';
import { contextFor, dataFingerprint, stateFingerprint } from './test-fixtures.ts';

type Layer = 'guard' | 'engine' | 'role';

interface Setup {
  name: string;
  /** One connection (PGlite): session state can be fingerprinted too. */
  single: boolean;
  open(layer: Layer): Promise<{ toolrow: Toolrow; cleanup(): Promise<void> }>;
}

const SEED = { orders: 40 };
const adminUrl = process.env.TOOLROW_TEST_DATABASE_URL?.trim();

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function pgliteSetup(conformingStrings: boolean): Setup {
  return {
    name: `PGlite, standard_conforming_strings ${conformingStrings ? 'on' : 'off'}`,
    single: true,
    async open() {
      const toolrow = await testStores({})[0]!.open({ seed: SEED });
      // Hostile session defaults: what a read must not inherit.
      if (!conformingStrings)
        await sqlDatabaseOf(toolrow.source).exec(
          'SET standard_conforming_strings = off; SET escape_string_warning = off; SET search_path = pg_temp, public',
        );
      return { toolrow, cleanup: () => toolrow.close() };
    },
  };
}

function postgresSetup(conformingStrings: boolean): Setup {
  return {
    name: `PostgreSQL, standard_conforming_strings ${conformingStrings ? 'on' : 'off'} on the database`,
    single: false,
    async open(layer) {
      const environment = await createTestEnvironment('postgres');
      const url = new URL(environment.env.DATABASE_URL!);
      const database = url.pathname.slice(1);
      if (!conformingStrings) {
        await admin((client) =>
          client.query(
            `ALTER DATABASE "${database}" SET standard_conforming_strings = off;
             ALTER DATABASE "${database}" SET search_path = pg_temp, public;
             ALTER DATABASE "${database}" SET client_encoding = 'SJIS'`,
          ),
        );
      }
      const toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
      await toolrow.source.seed!(SEED);
      let role: string | undefined;
      if (layer === 'role') {
        // Roles are cluster-wide: a name of this run's own, dropped with its database.
        role = `toolrow_reader_${randomBytes(4).toString('hex')}`;
        await sqlDatabaseOf(toolrow.source).exec(
          readerRoleSql({ role, schemas: ['public'] }) + hardeningSql(),
        );
        sqlDatabaseOf(toolrow.source).useReaderRole(role);
      }
      return {
        toolrow,
        async cleanup() {
          await toolrow.close();
          await environment.cleanup();
          await admin(async (client) => {
            if (role) await client.query(`DROP ROLE IF EXISTS "${role}"`);
            // A slot is not transactional: the engine layer alone cannot undo one (the role can refuse it).
            await client.query(
              `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'sneaky'`,
            );
          });
        },
      };
    },
  };
}

const SETUPS: Setup[] = [
  pgliteSetup(true),
  pgliteSetup(false),
  ...(adminUrl ? [postgresSetup(true), postgresSetup(false)] : []),
];

const SWITCHES: Record<Layer, ReadLayerSwitches> = {
  guard: { transaction: false, readerRole: false },
  engine: { readerRole: false },
  role: { transaction: false },
};

interface Outcome {
  attack: Attack;
  /** Per tool: 'refused' (guard), 'failed' (the database said no), or 'ran'. */
  results: Record<string, 'refused' | 'failed' | 'ran'>;
  /** What runQuery returned when it ran. */
  rows?: unknown[];
}

function outcomeOf(error: unknown): 'refused' | 'failed' {
  if (error instanceof ToolError && error.code === 'refused') return 'refused';
  return 'failed';
}

/** Sends one attack through every SQL-taking tool, with the layers as `layer` says. */
async function attack(toolrow: Toolrow, layer: Layer, entry: Attack): Promise<Outcome> {
  const ctx = contextFor(toolrow, { actor: 'agent' });
  const run = <T>(fn: () => Promise<T>) => {
    const inLayers = () => withReadLayers(SWITCHES[layer], fn);
    return layer === 'guard' ? inLayers() : withoutSqlGuard(inLayers);
  };
  const outcome: Outcome = { attack: entry, results: {} };
  try {
    const result = await run(() => invokeTool('runQuery', { sql: entry.sql }, ctx));
    outcome.results.runQuery = 'ran';
    outcome.rows = result.rows;
  } catch (error) {
    outcome.results.runQuery = outcomeOf(error);
  }
  try {
    await run(() => invokeTool('explainQuery', { sql: entry.sql }, ctx));
    outcome.results.explainQuery = 'ran';
  } catch (error) {
    outcome.results.explainQuery = outcomeOf(error);
  }
  try {
    const validation = await run(() => invokeTool('validateQuery', { sql: entry.sql }, ctx));
    outcome.results.validateQuery = validation.ok ? 'ran' : 'refused';
  } catch (error) {
    outcome.results.validateQuery = outcomeOf(error);
  }
  try {
    await run(async () => {
      await invokeTool('startExport', { sql: entry.sql, format: 'csv' }, ctx);
      // The export runs in the background: inside the switches, so wait for it here.
      await toolrow.state.exports.idle();
    });
    outcome.results.startExport = 'ran';
  } catch (error) {
    outcome.results.startExport = outcomeOf(error);
  }
  return outcome;
}

async function fingerprint(source: DataSource, session: boolean) {
  return {
    data: await dataFingerprint(source),
    state: await stateFingerprint(source, { session }),
  };
}

it('the corpus holds at least 150 forms, of every kind the issue names', () => {
  expect(ATTACKS.length).toBeGreaterThanOrEqual(150);
  const categories = new Set(ATTACKS.map((entry) => entry.category));
  for (const category of [
    'dml',
    'ddl',
    'writable-cte',
    'multiple-statements',
    'transaction-escape',
    'set-reset',
    'copy',
    'do-call',
    'lock',
    'prepare-execute',
    'session-functions',
    'obfuscation',
  ])
    expect(categories, category).toContain(category);
  expect(new Set(ATTACKS.map((entry) => entry.sql)).size, 'no entry twice').toBe(ATTACKS.length);
});

it('the parser guard alone refuses every form, without a database', async () => {
  const accepted: string[] = [];
  for (const entry of ATTACKS.filter((item) => !item.oneSelect)) {
    const verdict = await checkReadOnlySql(entry.sql, { hiddenSchemas: ['toolrow_app'] }).then(
      () => 'accepted',
      () => 'refused',
    );
    if (verdict === 'accepted') accepted.push(entry.sql);
  }
  expect(accepted).toEqual([]);
});

it('reads the backslash forms as one whole SELECT, as the pinned server does', async () => {
  for (const entry of ATTACKS.filter((item) => item.oneSelect)) {
    const statement = await checkReadOnlySql(entry.sql);
    expect(statement.statement, entry.sql).toBe(entry.sql);
  }
});

describe.each(SETUPS)('$name', (setup) => {
  describe.each(['guard', 'engine', 'role'] as const)('the %s layer alone', (layer) => {
    let toolrow: Toolrow;
    let cleanup: () => Promise<void>;
    let before: Awaited<ReturnType<typeof fingerprint>>;

    beforeAll(async () => {
      ({ toolrow, cleanup } = await setup.open(layer));
      await toolrow.source.schema.refresh();
      before = await fingerprint(toolrow.source, setup.single);
    }, 120_000);
    afterAll(() => cleanup?.());

    const ofEffect = (effect: Attack['effect']) => ATTACKS.filter((entry) => entry.effect === effect);

    it('runs as the layers say: the switched-off layers are really off', async () => {
      // Otherwise a test below could pass for the wrong reason (a guard still on, a role not used).
      const who = await attack(toolrow, layer, {
        category: 'probe',
        sql: "SELECT current_user AS who, current_setting('transaction_read_only') AS ro",
        effect: 'write',
      });
      expect(who.results).toEqual({
        runQuery: 'ran',
        explainQuery: 'ran',
        validateQuery: 'ran',
        startExport: 'ran',
      });
      const [row] = who.rows as { who: string; ro: string }[];
      expect(row!.ro).toBe(layer === 'engine' ? 'on' : 'off');
      if (layer === 'role') expect(row!.who).toBe(sqlDatabaseOf(toolrow.source).readerRole);
      else expect(row!.who).not.toMatch(/^toolrow_reader/);
    });

    it('leaves every write form without effect', async () => {
      const outcomes: Outcome[] = [];
      for (const entry of ofEffect('write')) outcomes.push(await attack(toolrow, layer, entry));
      if (layer === 'guard') {
        const through = outcomes.filter(
          (o) => !o.attack.oneSelect && Object.values(o.results).some((r) => r !== 'refused'),
        );
        expect(through.map((o) => o.attack.sql)).toEqual([]);
      } else {
        // The guard is off: every form reached the database, which said no (or ran it harmlessly).
        expect(outcomes.filter((o) => o.results.runQuery === 'refused').map((o) => o.attack.sql)).toEqual([]);
      }
      expect(await fingerprint(toolrow.source, setup.single)).toEqual(before);
    }, 300_000);

    if (layer === 'engine') {
      // Session state and server files are the guard's and the role's to stop (README threat model);
      // what the engine layer promises alone is that no table changes.
      it('lets no session or disclosure form change a table', async () => {
        for (const entry of ATTACKS.filter((item) => item.effect !== 'write'))
          await attack(toolrow, layer, entry);
        expect(await dataFingerprint(toolrow.source)).toEqual(before.data);
      }, 300_000);
      return;
    }

    it('leaves every session and server side effect without effect', async () => {
      const outcomes: Outcome[] = [];
      for (const entry of ofEffect('session')) outcomes.push(await attack(toolrow, layer, entry));
      if (layer === 'guard') {
        const through = outcomes.filter((o) => Object.values(o.results).some((r) => r !== 'refused'));
        expect(through.map((o) => o.attack.sql)).toEqual([]);
      }
      const after = await fingerprint(toolrow.source, setup.single);
      expect(after).toEqual(before);
    }, 300_000);

    it('reads no server file, secret or other state', async () => {
      const read: string[] = [];
      for (const entry of ofEffect('disclosure')) {
        const outcome = await attack(toolrow, layer, entry);
        if (outcome.results.runQuery === 'ran' && (outcome.rows?.length ?? 0) > 0) read.push(entry.sql);
      }
      expect(read).toEqual([]);
    }, 300_000);
  });
});
