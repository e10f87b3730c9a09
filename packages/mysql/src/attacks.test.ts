// The read path's attack corpus, adapted to MySQL and MariaDB, with each read-only layer alone, all
// of them, and none (the control: it shows the corpus can change the database, write a file or take
// a lock, so "held" means something). What a layer cannot hold alone is asserted too: it is why the
// others are there. Layers: the statement check, the READ ONLY transaction, the SELECT-only account.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runMariadbClient, VENUES_SQL } from '../test/made-by-mariadb.ts';
import type { MysqlLayers } from './server.ts';
import { openMysqlDataSource } from './source.ts';
import { createMysqlTestDatabase, type MysqlTestDatabase } from './testing.ts';
import { mysqlAddressOf } from './url.ts';

const OUTFILE = `/tmp/toolrow-attack-${randomBytes(6).toString('hex')}`;

/** Routines and a sequence the server holds, as a user's database might: each writes when called. */
const FIXTURE_SQL = `
CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, body TEXT);
CREATE SEQUENCE ticket;
DELIMITER //
CREATE FUNCTION bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO notes (body) VALUES ('bumped'); RETURN 1; END//
CREATE PROCEDURE bump_proc() MODIFIES SQL DATA BEGIN INSERT INTO notes (body) VALUES ('called'); END//
DELIMITER ;
`;

const ATTACKS: Record<string, string> = {
  insert: "insert into notes (body) values ('x')",
  update: "update venues set city = 'x'",
  delete: 'delete from bookings',
  replace: "replace into rooms values (1, 1, 'x')",
  'delete after a read': 'select 1; delete from bookings',
  'drop table': 'drop table bookings',
  'create table': 'create table sneaky (x int)',
  'alter table': 'alter table venues add column sneaky int',
  truncate: 'truncate table notes',
  'create view': 'create view sneaky as select 1',
  'create user': "create user 'sneaky'@'%' identified by 'x'",
  'a stored function that writes': 'select bump()',
  'the function qualified': 'select DB.bump()',
  'a stored function in a WHERE': 'select id from venues where bump() = 1',
  'call a procedure': 'call bump_proc()',
  'do a function': 'do bump()',
  'an executable comment': 'select 1 /*! , bump() */',
  'an executable comment as the statement': '/*!40101 delete from bookings */',
  'a MariaDB executable comment': 'select 1 /*M! , bump() */',
  'into outfile': `select * from venues into outfile '${OUTFILE}-outfile'`,
  'into dumpfile': `select name from venues limit 1 into dumpfile '${OUTFILE}-dumpfile'`,
  'load data': `load data infile '/etc/hostname' into table notes (body)`,
  'load_file leaks a file': "select load_file('/etc/passwd') as leaked",
  'get_lock holds a lock': "select get_lock('toolrow_attack', 0)",
  'nextval advances a sequence': 'select nextval(ticket)',
  'set then write': 'set session transaction read write',
  'handler open': 'handler venues open',
};

/** What the database, the server and its files hold that an attack could change. */
async function fingerprint(db: MysqlTestDatabase): Promise<string> {
  const parts: unknown[] = [];
  for (const table of ['venues', 'rooms', 'bookings', 'notes'])
    parts.push(await db.admin(`CHECKSUM TABLE \`${table}\``).catch(() => 'missing'));
  parts.push(
    await db.admin(
      'SELECT TABLE_NAME, TABLE_TYPE, (SELECT COUNT(*) FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME) AS n FROM information_schema.TABLES t WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1',
    ),
    await db.admin('SELECT next_not_cached_value FROM ticket'),
    await db.admin("SELECT COUNT(*) AS n FROM mysql.user WHERE User = 'sneaky'"),
    await db.admin("SELECT IS_USED_LOCK('toolrow_attack') AS held"),
    [existsSync(`${OUTFILE}-outfile`), existsSync(`${OUTFILE}-dumpfile`)],
  );
  return JSON.stringify(parts);
}

interface Setup {
  layers: MysqlLayers;
  /** Read through the SELECT-only account (the third layer), else the admin's. */
  reader: boolean;
}

describeWithService('mariadb', 'the MySQL read path against the attack corpus', (adminUrl) => {
  const readerPassword = randomBytes(12).toString('hex');
  let setupDb: MysqlTestDatabase;

  beforeAll(async () => {
    setupDb = await createMysqlTestDatabase(adminUrl, 'toolrow_atk_setup_');
    // One reader account for every attack database: SELECT on them alone.
    await setupDb.admin(
      `CREATE USER IF NOT EXISTS 'toolrow_atk_reader'@'127.0.0.1' IDENTIFIED BY '${readerPassword}';
       CREATE USER IF NOT EXISTS 'toolrow_atk_reader'@'localhost' IDENTIFIED BY '${readerPassword}';
       GRANT SELECT ON \`toolrow\\_atk\\_%\`.* TO 'toolrow_atk_reader'@'127.0.0.1';
       GRANT SELECT ON \`toolrow\\_atk\\_%\`.* TO 'toolrow_atk_reader'@'localhost';`,
    );
  });
  afterAll(async () => {
    await setupDb?.admin(
      "DROP USER IF EXISTS 'toolrow_atk_reader'@'127.0.0.1', 'toolrow_atk_reader'@'localhost', 'sneaky'@'%'",
    );
    await setupDb?.drop();
    for (const suffix of ['-outfile', '-dumpfile']) rmSync(`${OUTFILE}${suffix}`, { force: true });
  });

  /** Runs each attack on a fresh database through the engine's read path; returns those with an effect. */
  async function attack({ layers, reader }: Setup): Promise<string[]> {
    const effects: string[] = [];
    for (const [name, template] of Object.entries(ATTACKS)) {
      const db = await createMysqlTestDatabase(adminUrl, 'toolrow_atk_');
      try {
        runMariadbClient(mysqlAddressOf(db.url, 'url'), VENUES_SQL + FIXTURE_SQL);
        const sql = template.replace('DB.', `${db.name}.`);
        const before = await fingerprint(db);
        const address = mysqlAddressOf(db.url, 'url');
        const source = await openMysqlDataSource({
          address: reader ? { ...address, user: 'toolrow_atk_reader', password: readerPassword } : address,
          layers,
        });
        let leaked = false;
        try {
          const checked = await source.queries.check(sql);
          const result = await source.queries.run(checked.statement, { timeoutMs: 10_000 });
          // The file's bytes come back as \x-hex (LOAD_FILE returns a BLOB).
          const secret = Buffer.from('root:').toString('hex');
          leaked = result.rows.some(
            (row) =>
              typeof row.leaked === 'string' && (row.leaked.includes('root:') || row.leaked.includes(secret)),
          );
          if (name === 'set then write')
            await source.queries.run("insert into notes (body) values ('after set')");
          const [lock] = (await db.admin("SELECT IS_USED_LOCK('toolrow_attack') AS held")) as {
            held: unknown;
          }[];
          if (lock?.held !== null) leaked = true;
        } catch {
          // Refused or failed: what matters is what it left behind.
        } finally {
          await source.close();
        }
        const after = await fingerprint(db);
        if (leaked || after !== before) effects.push(name);
      } finally {
        await db.admin("DROP USER IF EXISTS 'sneaky'@'%'");
        await db.admin('SELECT RELEASE_ALL_LOCKS()');
        for (const suffix of ['-outfile', '-dumpfile']) rmSync(`${OUTFILE}${suffix}`, { force: true });
        await db.drop();
      }
    }
    return effects;
  }

  // Each attack gets a database of its own: a run of the corpus takes seconds on a busy machine.
  const CORPUS_TIMEOUT = 300_000;
  const NONE: MysqlLayers = { check: false, readOnlyTransaction: false };

  it(
    'with no layer (the control), the corpus writes, makes files, locks and leaks',
    async () => {
      const effects = await attack({ layers: NONE, reader: false });
      expect(effects).toEqual(
        expect.arrayContaining([
          'insert',
          'update',
          'delete',
          'drop table',
          'create user',
          'a stored function that writes',
          'call a procedure',
          'an executable comment as the statement',
          'into outfile',
          'load_file leaks a file',
          'get_lock holds a lock',
          'nextval advances a sequence',
        ]),
      );
    },
    CORPUS_TIMEOUT,
  );

  it(
    'with every layer, nothing has an effect',
    async () => {
      expect(await attack({ layers: { check: true, readOnlyTransaction: true }, reader: true })).toEqual([]);
    },
    CORPUS_TIMEOUT,
  );

  it(
    'the statement check alone holds the whole corpus',
    async () => {
      expect(await attack({ layers: { check: true, readOnlyTransaction: false }, reader: false })).toEqual(
        [],
      );
    },
    CORPUS_TIMEOUT,
  );

  it(
    'the READ ONLY transaction alone holds every write to a table, but not files, locks, DDL or accounts',
    async () => {
      const effects = await attack({ layers: { check: false, readOnlyTransaction: true }, reader: false });
      for (const write of [
        'insert',
        'update',
        'delete',
        'replace',
        'a stored function that writes',
        'call a procedure',
      ])
        expect(effects).not.toContain(write);
      expect(effects).toEqual(expect.arrayContaining(['into outfile', 'get_lock holds a lock']));
    },
    CORPUS_TIMEOUT,
  );

  it(
    'the SELECT-only account alone holds every write, file and account, but not a named lock',
    async () => {
      const effects = await attack({ layers: NONE, reader: true });
      expect(effects).toEqual(['get_lock holds a lock']);
    },
    CORPUS_TIMEOUT,
  );

  // The server's settings are hostile input: with NO_BACKSLASH_ESCAPES a backslash no longer escapes
  // a quote, so text the check reads as one string would end early on the server and run what follows.
  it(
    'a server set to NO_BACKSLASH_ESCAPES and ANSI_QUOTES cannot turn a string the check passed into code',
    async () => {
      const db = await createMysqlTestDatabase(adminUrl, 'toolrow_atk_');
      const [{ mode }] = (await db.admin('SELECT @@GLOBAL.sql_mode AS mode')) as [{ mode: string }];
      try {
        runMariadbClient(mysqlAddressOf(db.url, 'url'), VENUES_SQL + FIXTURE_SQL);
        const attackText = "select 'x\\', bump() -- '";
        await db.admin("SET GLOBAL sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES'");
        const notes = async () =>
          Number(((await db.admin('SELECT COUNT(*) AS n FROM notes')) as { n: number }[])[0]!.n);
        // The control: a session that keeps the server's settings reads the quote as closed and runs the function.
        await db.admin('SET SESSION sql_mode = @@GLOBAL.sql_mode');
        await db.admin(attackText);
        expect(await notes()).toBe(1);
        // Toolrow's reads, with the check as the only read layer: the pinned session reads one string.
        const source = await openMysqlDataSource({
          address: mysqlAddressOf(db.url, 'url'),
          layers: { check: true, readOnlyTransaction: false },
        });
        try {
          const checked = await source.queries.check(attackText);
          const result = await source.queries.run(checked.statement);
          expect(Object.values(result.rows[0]!)).toEqual(["x', bump() -- "]);
        } finally {
          await source.close();
        }
        expect(await notes()).toBe(1);
      } finally {
        await db.admin(`SET GLOBAL sql_mode = '${mode}'`);
        await db.drop();
      }
    },
    CORPUS_TIMEOUT,
  );
});
