// The statement check, table-driven: what it lets through (the 22 TPC-H queries, statements Toolrow
// did not write; MySQL's own quoting), and each refusal, naming what is wrong and what to do.
import { describe, expect, it } from 'vitest';
import { TPCH_QUERIES } from '../../dynamodb/test/tpch-queries.ts';
import { checkMysqlText, scanMysqlText } from './statement-check.ts';

const check = (text: string, storedFunctions: string[] = []) =>
  checkMysqlText(text, { database: 'shop', flavor: 'MariaDB', storedFunctions });

describe('the MySQL statement check', () => {
  // Two are refused, and the test says so: Q13 names a derived table's columns (AS c_orders (c_custkey,
  // c_count)), which MariaDB 10.11 itself rejects; Q22's SUBSTRING(x FROM 1 FOR 2) is valid MySQL that
  // node-sql-parser's grammar does not read (a false refusal: SUBSTRING(x, 1, 2) passes).
  const REFUSED = new Set(['Q13', 'Q22']);
  it.each(TPCH_QUERIES.map((sql, index) => [`Q${index + 1}`, sql]))('TPC-H %s', async (name, sql) => {
    if (REFUSED.has(name)) await expect(check(sql)).rejects.toThrow(/does not read it as one SELECT/);
    else await expect(check(sql)).resolves.toMatchObject({ statement: sql.trim() });
  });
  it('TPC-H Q22 passes with SUBSTRING written with commas', async () => {
    const q22 = TPCH_QUERIES[21]!.replaceAll('substring(c_phone FROM 1 FOR 2)', 'substring(c_phone, 1, 2)');
    await expect(check(q22)).resolves.toMatchObject({ tables: ['shop.customer', 'shop.orders'] });
  });

  it.each([
    ['select 1;', 'select 1'],
    ['select 1; -- done', 'select 1'],
    ['select 1 # note', 'select 1 # note'],
    ['select \'a;b\', "c;d", `e;f` from t', 'select \'a;b\', "c;d", `e;f` from t'],
    ["select 'it\\'s; drop table t' from t", "select 'it\\'s; drop table t' from t"],
    ['(select 1) union (select 2)', '(select 1) union (select 2)'],
    [
      'with x as (select id from orders) select * from x',
      'with x as (select id from orders) select * from x',
    ],
    ['select 1--1', 'select 1--1'],
    // node-sql-parser's MariaDB build refuses a bare `status`; the check reads with its MySQL grammar.
    [
      "select status, count(*) from orders where status <> 'x' group by status",
      "select status, count(*) from orders where status <> 'x' group by status",
    ],
  ])('reads %s as one statement', async (text, statement) => {
    expect((await check(text)).statement).toBe(statement);
  });

  it('names the tables it reads in the connection’s database, not a CTE', async () => {
    expect(
      (
        await check(
          'with x as (select * from orders) select * from x join shop.customers c on c.id = x.customer_id',
        )
      ).tables.sort(),
    ).toEqual(['shop.customers', 'shop.orders']);
  });

  it.each([
    ["select 'a\\' from t; drop table x; -- '", null],
    ['select 1; delete from t', /more than one statement/],
    ["select 1; 'x'", /more than one statement/],
    ['select 1 /*! , sleep(1) */', /executable comment .*\/\*!/],
    ['/*!40101 delete from t */', /executable comment/],
    ['select 1 /*M! , 2 */', /executable comment/],
    ["select 'open", /string opened at character 8 is never closed/],
    ['select 1 /* open', /comment opened at character 10 is never closed/],
    ['select 1\0', /NUL byte/],
    ['', /empty/],
    ['insert into t values (1)', /INSERT is not a read/],
    ['do sleep(1)', /DO is not a read/],
    ['handler t open', /HANDLER is not a read/],
    ['call p()', /CALL is not a read/],
    ['set @a = 1', /SET is not a read/],
    ['load data infile "/etc/passwd" into table t', /LOAD is not a read/],
    ['explain select 1', /EXPLAIN/],
    ["select * from t into outfile '/tmp/x'", /INTO OUTFILE writes a file/],
    ["select 1 into dumpfile '/tmp/x'", /INTO DUMPFILE/],
    ['select * from t into @a', /INTO VAR/],
    ['select * from t for update', /FOR UPDATE locks rows/],
    ['select @a := 1', /assigns a variable/],
    ['select @@secure_file_priv', /server's settings/],
    ['select sleep(10)', /SLEEP holds the connection/],
    ['select benchmark(100000000, md5(1))', /BENCHMARK/],
    ["select load_file('/etc/passwd')", /LOAD_FILE reads a file/],
    ["select get_lock('x', 10)", /GET_LOCK takes a named lock/],
    ['select nextval(s)', /NEXTVAL advances a sequence/],
    ['select last_insert_id(5)', /LAST_INSERT_ID/],
    ['select shop.bump()', /stored function, which may write/],
    ['select * from t where bump() = 1', /bump\(\) is a stored function/],
    ['select * from mysql.user', /reads mysql\.user, outside this connection's database 'shop'/],
    ['select * from t lock in share mode', /LOCK IN SHARE MODE locks rows/],
  ])('refuses %s', async (text, message) => {
    if (message === null) {
      // Under the pinned sql_mode the backslash escapes the quote: one string, one statement.
      expect((await check(text)).statement).toBe(text);
      return;
    }
    await expect(check(text, ['bump'])).rejects.toThrow(message);
  });

  it('scans comments and quotes as the server does', () => {
    expect(scanMysqlText('-- a\nselect 1').first).toBe('SELECT');
    expect(scanMysqlText('/* x */ (select 1)').first).toBe('(');
  });
});
