import type { StatementAdvice } from '@toolrow/datasource';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkReadOnlySql, isSideEffectFunction, type SqlGuardCode, SqlGuardError } from './sql-guard.ts';

const ACCEPTED: readonly string[] = [
  'select 1',
  'SELECT * FROM orders',
  'select 1;',
  '  -- leading comment\n select 1 /* trailing */ ;  ',
  'select 1; -- a comment after the only statement',
  'select 1;;',
  'values (1, 2), (3, 4)',
  'table orders',
  "with recent as (select * from orders where created_at > now() - interval '30 days') select count(*) from recent",
  'with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select * from r',
  'select o.id, c.name from orders o join customers c on c.id = o.customer_id left join order_items i using (order_id)',
  'select status, count(*), sum(total), avg(total) from orders group by status having count(*) > 1 order by 2 desc',
  'select id, row_number() over (partition by customer_id order by created_at) from orders',
  "select count(*) filter (where status = 'paid') from orders group by rollup (status)",
  'select * from orders where id in (select order_id from order_items) limit 10 offset 5',
  "select 'insert into t values (1)' as not_a_write",
  'select "delete" from "update"',
  'select $$ drop table orders; $$ as text',
  'select $tag$ ; delete from orders; $tag$',
  "select E'\\'; delete from orders; --'",
  'select 1 union select 2 except select 3 intersect select 4',
  'select * from generate_series(1, 3) g, lateral (select g * 2) d',
  "select date_trunc('month', created_at), coalesce(note, '') from orders",
  "select current_setting('TimeZone')",
  'select * from pg_catalog.pg_class limit 1',
  'select distinct on (customer_id) * from orders order by customer_id, created_at desc',
  'select currval from sequences_report',
];

const REFUSED: readonly (readonly [string, SqlGuardCode, RegExp?])[] = [
  ['', 'empty'],
  ['   ', 'empty'],
  ['-- only a comment', 'empty'],
  [';', 'empty'],
  ['selec 1', 'syntax', /syntax error/],
  ['select 1; select 2', 'multiple-statements', /one statement/],
  ['select 1; delete from orders', 'multiple-statements'],
  ["select ';'; drop table orders", 'multiple-statements'],
  ['select 1 /* ; */; update orders set total = 0', 'multiple-statements'],
  ['insert into orders (id) values (1)', 'not-a-select', /INSERT .*stage/],
  ['update orders set total = 0', 'not-a-select', /UPDATE/],
  ['delete from orders', 'not-a-select', /DELETE/],
  ['merge into orders o using x on o.id = x.id when matched then delete', 'not-a-select', /MERGE/],
  ['with d as (delete from orders returning *) select * from d', 'data-modifying-cte', /DELETE inside/],
  ['with u as (update orders set total = 0 returning id) select count(*) from u', 'data-modifying-cte'],
  ['with i as (insert into orders default values returning id) select 1', 'data-modifying-cte'],
  [
    'select * from (select 1) s where exists (with d as (delete from t returning 1) select 1 from d)',
    'data-modifying-cte',
  ],
  ['select * into new_orders from orders', 'select-into', /INTO/],
  ['select * from orders for update', 'row-locking', /FOR UPDATE/],
  ['select * from orders for share nowait', 'row-locking'],
  ['select * from orders for no key update skip locked', 'row-locking'],
  ['select * from (select * from orders for update) s', 'row-locking'],
  ['select 1 union select id from orders for key share', 'row-locking'],
  ['create table x (id int)', 'not-a-select', /CREATE TABLE/],
  ['create table x as select 1', 'not-a-select', /CREATE TABLE AS/],
  ['drop table orders', 'not-a-select', /DROP TABLE/],
  ['alter table orders add column x int', 'not-a-select', /ALTER TABLE/],
  ['truncate orders', 'not-a-select', /TRUNCATE/],
  ['create index on orders (id)', 'not-a-select'],
  ['create view v as select 1', 'not-a-select'],
  ['grant select on orders to public', 'not-a-select'],
  ["copy orders to '/tmp/x'", 'not-a-select', /COPY/],
  ['copy (select 1) to stdout', 'not-a-select', /COPY/],
  ["set statement_timeout = '1h'", 'not-a-select', /SET/],
  ['set local transaction_read_only = off', 'not-a-select', /SET/],
  ['reset all', 'not-a-select', /RESET/],
  ['set transaction read write', 'not-a-select'],
  ['call my_procedure()', 'not-a-select', /CALL/],
  ['do $$ begin delete from orders; end $$', 'not-a-select', /DO/],
  ['lock table orders', 'not-a-select', /LOCK/],
  ['listen channel', 'not-a-select', /LISTEN/],
  ["notify channel, 'x'", 'not-a-select', /NOTIFY/],
  ['begin', 'not-a-select'],
  ['commit', 'not-a-select'],
  ['explain select 1', 'not-a-select', /send the SELECT alone/],
  ['explain analyze delete from orders', 'not-a-select'],
  ['vacuum orders', 'not-a-select'],
  ['analyze orders', 'not-a-select'],
  ['show search_path', 'not-a-select', /SHOW/],
  ['prepare p as select 1', 'not-a-select'],
  ['declare c cursor for select 1', 'not-a-select'],
  ['refresh materialized view mv', 'not-a-select'],
  ["select nextval('orders_id_seq')", 'side-effect-function', /nextval/],
  ["select pg_catalog.setval('orders_id_seq', 1)", 'side-effect-function', /setval/],
  ["select NEXTVAL('s')", 'side-effect-function'],
  ['select pg_sleep(10)', 'side-effect-function', /pg_sleep/],
  ["select pg_sleep_for('1 minute')", 'side-effect-function'],
  ["select set_config('transaction_read_only', 'off', true)", 'side-effect-function', /set_config/],
  ['select pg_advisory_lock(1)', 'side-effect-function'],
  ['select pg_try_advisory_xact_lock(1)', 'side-effect-function'],
  ['select pg_terminate_backend(1)', 'side-effect-function'],
  ['select pg_cancel_backend(1)', 'side-effect-function'],
  ["select lo_import('/etc/passwd')", 'side-effect-function'],
  ['select lo_unlink(1)', 'side-effect-function'],
  ["select * from dblink('host=x', 'delete from t') as t(a int)", 'side-effect-function', /dblink/],
  ["select pg_read_file('/etc/passwd')", 'side-effect-function'],
  ["select pg_read_binary_file('x')", 'side-effect-function'],
  ["select * from pg_ls_dir('.')", 'side-effect-function'],
  ["select query_to_xml('delete from orders returning 1', true, true, '')", 'side-effect-function'],
  ["select * from ts_stat('select 1')", 'side-effect-function'],
  ['select txid_current()', 'side-effect-function'],
  ['select pg_reload_conf()', 'side-effect-function'],
  ["select pg_notify('c', 'x')", 'side-effect-function'],
  ["select id from orders where id = (select nextval('s'))", 'side-effect-function'],
  ['with x as (select pg_sleep(1)) select * from x', 'side-effect-function'],
  ['select * from orders order by pg_sleep(1)', 'side-effect-function'],
  ['select * from pg_authid', 'forbidden-relation', /credentials/],
  ["select most_common_vals from pg_stats where schemaname = 'toolrow_app'", 'forbidden-relation'],
  ['select * from pg_catalog.pg_statistic', 'forbidden-relation'],
  ['select * from pg_largeobject', 'forbidden-relation'],
  [
    "select * from crosstab('select * from toolrow_app.mcp_tokens') as t(a text)",
    'side-effect-function',
    /runs SQL given as text/,
  ],
  ["select * from connectby('toolrow_app.x', 'a', 'b', '1', 0) as t(a int)", 'side-effect-function'],
  ['table toolrow_app.mcp_tokens', 'forbidden-relation'],
  ['select * from pg_catalog.pg_shadow', 'forbidden-relation'],
  ['select * from pg_hba_file_rules', 'forbidden-relation'],
  ['select * from toolrow_app.mcp_tokens', 'forbidden-relation', /app state/],
  ['select * from orders o join "toolrow_app".audit_log a on true', 'forbidden-relation'],
];

async function refusal(sql: string): Promise<SqlGuardError> {
  try {
    await checkReadOnlySql(sql, { hiddenSchemas: ['toolrow_app'] });
  } catch (error) {
    if (error instanceof SqlGuardError) return error;
    throw error;
  }
  throw new Error(`accepted: ${sql}`);
}

describe('checkReadOnlySql', () => {
  it.each(ACCEPTED)('accepts %s', async (sql) => {
    const result = await checkReadOnlySql(sql, { hiddenSchemas: ['toolrow_app'] });
    expect(result.statement.endsWith(';')).toBe(false);
    expect(result.statement.length).toBeGreaterThan(0);
  });

  it.each(REFUSED.map(([sql, code, message]) => ({ sql, code, message })))(
    'refuses $sql as $code',
    async ({ sql, code, message }) => {
      const error = await refusal(sql);
      expect(error.reason).toBe(code);
      if (message) expect(error.message).toMatch(message);
      // Every refusal says what to do next, not only what went wrong.
      expect(error.message.length).toBeGreaterThan(40);
    },
  );

  it('keeps the statement text without its trailing semicolon and comment', async () => {
    const result = await checkReadOnlySql("select 'é' as a; -- done");
    expect(result.statement).toBe("select 'é' as a");
  });

  it('reports the relations, CTEs, columns and aliases a statement reads', async () => {
    const result = await checkReadOnlySql(
      'with r as (select 1 as n) select o.id, c.name as who, total from public.orders o join customers c on c.id = o.customer_id, r, (select 1) s',
    );
    expect(result.relations).toEqual(
      expect.arrayContaining([
        { schema: 'public', name: 'orders', alias: 'o' },
        { name: 'customers', alias: 'c' },
        { name: 'r' },
      ]),
    );
    expect(result.cteNames).toEqual(['r']);
    expect(result.outputNames).toEqual(expect.arrayContaining(['n', 'who']));
    expect(result.columnRefs).toEqual(
      expect.arrayContaining([
        { qualifier: ['o'], column: 'id' },
        { qualifier: [], column: 'total' },
      ]),
    );
    expect(result.hasDerivedSources).toBe(true);
    expect(result.derivedAliases).toEqual(['s']);
  });

  it('points at the character of a syntax error', async () => {
    const error = await refusal('select 1 frm orders where');
    expect(error.reason).toBe('syntax');
    expect(error.position).toBeGreaterThan(1);
  });

  it('matches side-effect function names by family', () => {
    for (const name of [
      'pg_advisory_unlock_all',
      'lo_export',
      'dblink_exec',
      'pg_stat_reset_shared',
      'cursor_to_xml',
      'SETVAL',
    ]) {
      expect(isSideEffectFunction(name), name).toBe(true);
    }
    for (const name of ['count', 'date_trunc', 'coalesce', 'lower', 'now', 'pg_size_pretty', 'row_number']) {
      expect(isSideEffectFunction(name), name).toBe(false);
    }
  });

  it('refuses any second statement hidden after strings, identifiers, comments or dollar quotes', async () => {
    const prefix = fc.constantFrom(
      "select ';'",
      'select "a;b" from t',
      'select 1 /* ; */',
      'select $$;$$',
      "select $x$ '; $x$",
      'select 1 -- ;\n',
      "select E'\\';'",
    );
    const second = fc.constantFrom(
      'delete from t',
      'drop table t',
      'select 2',
      'update t set a = 1',
      "set role 'x'",
    );
    await fc.assert(
      fc.asyncProperty(prefix, second, async (first, next) => {
        const error = await refusal(`${first}; ${next}`);
        expect(error.reason).toBe('multiple-statements');
      }),
    );
  });
});

// The same statements are refused whatever the advice; only the advice differs (the tools give a
// model's, the app a person's: here two of the test's making, so no app's words are copied).
const MODEL: StatementAdvice = {
  write: 'Use the stage tools (stageUpdateRows).',
  explain: 'send the SELECT alone (explainQuery shows its plan)',
  export: 'export them (startExport) instead',
  sample: 'sampleValues shows common values',
  appState: 'Use the silent tools.',
};
const PERSON: StatementAdvice = {
  write: 'Edit the rows in the table.',
  explain: 'run the SELECT alone',
  export: 'use Export instead',
  sample: 'the column header shows its type',
  appState: 'See the app itself.',
};

describe('refusal advice by audience', () => {
  const refusal = async (sql: string, audience?: 'model' | 'user') => {
    try {
      await checkReadOnlySql(sql, {
        hiddenSchemas: ['toolrow_app'],
        advice: audience === 'user' ? PERSON : MODEL,
      });
    } catch (error) {
      return error as SqlGuardError;
    }
    throw new Error(`not refused: ${sql}`);
  };
  it.each([
    'delete from orders',
    'with gone as (delete from orders returning *) select 1',
    'explain select 1',
    'select * into copy from orders',
    'select * from pg_authid',
    'select * from toolrow_app.mcp_tokens',
    'vacuum',
  ])('%j: the model is told which tools, the person what to do in the app', async (sql) => {
    const forModel = await refusal(sql);
    const forUser = await refusal(sql, 'user');
    expect(forUser.reason).toBe(forModel.reason);
    expect(forUser.message).not.toMatch(
      /stage tools|stage[A-Z]\w+|explainQuery|sampleValues|startExport|silent tools|the user/,
    );
    expect(forUser.message).not.toBe(forModel.message);
  });
});
