// TOOLROW_EXPORT_TIME_LIMIT reaches the export engine the state wires, in minutes, and a bad value
// is refused up front with a message that says what it should look like.
import { afterAll, describe, expect, it } from 'vitest';
import { openToolrow, type Toolrow } from './toolrow.ts';

const memory = { data: { memory: true }, state: { memory: true } } as const;

describe('TOOLROW_EXPORT_TIME_LIMIT', () => {
  const opened: Toolrow[] = [];
  afterAll(async () => {
    for (const toolrow of opened) await toolrow.close();
  });

  it.each(['soon', '0', '-5'])('refuses %j, naming the variable and the unit', async (value) => {
    await expect(openToolrow({ env: { TOOLROW_EXPORT_TIME_LIMIT: value }, ...memory })).rejects.toThrow(
      `TOOLROW_EXPORT_TIME_LIMIT must be a number of minutes greater than 0 (e.g. 90), got '${value}'.`,
    );
  });

  it('stops an export at the limit it sets, and says how to raise it', async () => {
    // 0.005 minutes = 300 ms; the query sleeps 5 ms a row for 2 s in all.
    const toolrow = await openToolrow({ env: { TOOLROW_EXPORT_TIME_LIMIT: '0.005' }, ...memory });
    opened.push(toolrow);
    const job = await toolrow.state.exports.run({
      source: { sql: 'SELECT g, pg_sleep(0.005) FROM generate_series(1, 400) g' },
      format: 'csv',
      actor: 'user',
      batchSize: 20,
    });
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/time limit of 300 ms .*TOOLROW_EXPORT_TIME_LIMIT, in minutes/);
  });
});
