// A schema of 1,000 tables, one of them 1,000 columns wide: listTables, describeTable and a 50-row
// runQuery of the wide table each stay within the result budget (counted with the real o200k
// tokenizer, as `toolrow catalog --cost` counts), say what they left out, and following what they
// say reaches every table and every column. The budget's estimate never undercounts them.

import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, RESULT_TOKEN_BUDGET } from './budget.ts';
import { invokeTool } from './registry.ts';
import { contextFor } from './test-fixtures.ts';

const SCHEMAS = 5;
const TABLES = 1000;
const WIDE_COLUMNS = 1000;

/** What the model receives: the output as compact JSON. */
const textOf = (output: unknown) => JSON.stringify(output);

describe.each(testStores())('a schema of 1,000 tables on $name', ({ open }) => {
  let toolrow: Toolrow;
  const call = async (tool: string, input: unknown) => {
    const output = await invokeTool(tool, input, contextFor(toolrow));
    const text = textOf(output);
    const tokens = countTokens(text);
    expect({ tool, within: tokens <= RESULT_TOKEN_BUDGET }).toEqual({ tool, within: true });
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(tokens);
    return output as Record<string, unknown>;
  };

  beforeAll(async () => {
    toolrow = await open();
    const statements: string[] = [];
    for (let schema = 0; schema < SCHEMAS; schema++) statements.push(`CREATE SCHEMA s${schema}`);
    for (let index = 0; index < TABLES - 1; index++) {
      statements.push(
        `CREATE TABLE s${index % SCHEMAS}.table_${String(index).padStart(4, '0')} (id int PRIMARY KEY, label text, amount numeric(12,2), created_at timestamptz)`,
      );
    }
    const columns = Array.from({ length: WIDE_COLUMNS }, (_, index) => `c${index + 1} int`).join(', ');
    statements.push(`CREATE TABLE s0.wide (${columns})`);
    const values = Array.from({ length: WIDE_COLUMNS }, (_, index) => `g * ${index + 1}`).join(', ');
    statements.push(`INSERT INTO s0.wide SELECT ${values} FROM generate_series(1, 60) AS g`);
    statements.push(`COMMENT ON COLUMN s0.wide.c500 IS 'the customer''s loyalty tier'`);
    await sqlDatabaseOf(toolrow.source).exec(statements.join(';\n'));
    await toolrow.source.schema.refresh();
  }, 300_000);
  afterAll(() => toolrow?.close());

  it('listTables: counts and a page within the budget; following the pages reaches every table', async () => {
    const first = await call('listTables', {});
    expect(first.totalTables).toBe(TABLES);
    // 999 tables spread over the schemas, and the wide one in s0.
    expect(first.schemas).toEqual(
      Array.from({ length: SCHEMAS }, (_, schema) => ({
        schema: `s${schema}`,
        tables: Math.ceil((TABLES - 1 - schema) / SCHEMAS) + (schema === 0 ? 1 : 0),
      })),
    );
    expect(first.note).toMatch(/Next: listTables\(\{"page":2\}\)/);
    const seen = new Set<string>();
    for (let page = 1; page <= (first.pages as number); page++) {
      const output = page === 1 ? first : await call('listTables', { page });
      for (const table of output.tables as { name: string }[]) seen.add(table.name);
    }
    expect(seen.size).toBe(TABLES);
    // Narrowing: by schema, by part of a name.
    const narrowed = await call('listTables', { name: 'table_012' });
    expect((narrowed.tables as { name: string }[]).map((table) => table.name).sort()).toEqual(
      Array.from({ length: 10 }, (_, digit) => `s${(120 + digit) % SCHEMAS}.table_012${digit}`).sort(),
    );
    const past = await invokeTool('listTables', { page: 10_000 }, contextFor(toolrow)).catch(
      (error: Error) => error,
    );
    expect((past as Error).message).toMatch(/page 1 to \d+/);
  }, 120_000);

  it('describeTable of 1,000 columns: a page within the budget, the count, and the next page reaches every column', async () => {
    const first = await call('describeTable', { table: 'wide' });
    expect(first.columnCount).toBe(WIDE_COLUMNS);
    expect(first.note).toMatch(/Next: describeTable\(\{"table":"s0.wide","page":2\}\)/);
    const seen: string[] = [];
    for (let page = 1; page <= (first.pages as number); page++) {
      const output = page === 1 ? first : await call('describeTable', { table: 'wide', page });
      seen.push(...(output.columns as { name: string }[]).map((column) => column.name));
    }
    expect(seen).toEqual(Array.from({ length: WIDE_COLUMNS }, (_, index) => `c${index + 1}`));
  }, 120_000);

  it('runQuery of 50 rows × 1,000 columns: within the budget, naming the columns left out; selecting those reaches them', async () => {
    const output = await call('runQuery', { sql: 'select * from s0.wide order by c1', limit: 50 });
    expect(output.columnCount).toBe(WIDE_COLUMNS);
    const rows = output.rows as Record<string, number>[];
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const kept = Object.keys(rows[0]!);
    expect(output.columns).toEqual(kept);
    expect(kept.length).toBeLessThan(WIDE_COLUMNS);
    const note = output.note as string;
    expect(note).toContain(`only the first ${kept.length} are shown`);
    expect(note).toContain(`Left out: c${kept.length + 1}, c${kept.length + 2}`);
    // The advice: select the columns by name, a few at a time; every column is reachable so.
    const reached = new Set(kept);
    let missing = Array.from({ length: WIDE_COLUMNS }, (_, index) => `c${index + 1}`).filter(
      (column) => !reached.has(column),
    );
    while (missing.length > 0) {
      const chunk = missing.slice(0, kept.length);
      const part = await call('runQuery', {
        sql: `select ${chunk.join(', ')} from s0.wide order by c1`,
        limit: 10,
      });
      const partRows = part.rows as Record<string, number>[];
      const got = Object.keys(partRows[0]!);
      expect(got.length).toBeGreaterThan(0);
      for (const column of got) {
        expect(partRows[0]![column]).toBe(Number(column.slice(1)));
        reached.add(column);
      }
      missing = missing.filter((column) => !reached.has(column));
    }
    expect(reached.size).toBe(WIDE_COLUMNS);
  }, 180_000);

  it('findColumns: within the budget on a thousand matches, exact names first, comments searched too', async () => {
    const many = await call('findColumns', { text: 'c', limit: 500 });
    expect(many.truncated).toBe(true);
    expect(many.note).toMatch(/of \d+ matching columns shown/);
    const exact = await call('findColumns', { text: 'c5' });
    expect((exact.matches as { column: string }[])[0]).toMatchObject({ table: 's0.wide', column: 'c5' });
    const byComment = await call('findColumns', { text: 'LOYALTY' });
    expect(byComment.matches).toEqual([{ table: 's0.wide', column: 'c500', type: 'integer' }]);
  });
});
