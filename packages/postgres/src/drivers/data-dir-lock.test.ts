import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './open.ts';

// One PGlite data directory, one process: a second opener must be refused before it touches the files.
describe('the embedded data directory lock', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolrow-lock-'));
  const lockPath = join(dataDir, 'pgdata.lock');
  const env = {};
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill();
  });

  it('refuses a second open of the same directory, naming the holder and the way out; the first keeps working', async () => {
    const first = await openDatabase({ env, dataDir });
    try {
      expect(existsSync(lockPath)).toBe(true);
      await expect(openDatabase({ env, dataDir })).rejects.toThrow(
        /already open in this process .*one process per data directory.*DATABASE_URL/,
      );
      expect((await first.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    } finally {
      await first.close();
    }
    expect(existsSync(lockPath)).toBe(false);
  });

  it('opens again once the holder has closed it', async () => {
    const again = await openDatabase({ env, dataDir });
    await again.close();
  });

  it('refuses while another live process holds the lock', async () => {
    const holder = spawn('sleep', ['30']);
    children.push(holder);
    writeFileSync(
      lockPath,
      JSON.stringify({
        pid: holder.pid,
        hostname: hostname(),
        startedAt: 'earlier',
        command: 'toolrow serve',
      }),
    );
    await expect(openDatabase({ env, dataDir })).rejects.toThrow(
      new RegExp(`already open in process ${holder.pid} on .*toolrow serve`),
    );
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(holder.pid);
    holder.kill();
    await new Promise((resolve) => holder.once('exit', resolve));
  });

  it('takes over a lock whose process is gone (a crash or a kill)', async () => {
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: gone.pid, hostname: hostname(), startedAt: 'earlier', command: 'x' }),
    );
    const db = await openDatabase({ env, dataDir });
    try {
      expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    } finally {
      await db.close();
    }
  });
});
