// A second command on the embedded database waits for the first instead of failing at once.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from './command.ts';
import { run } from './main.ts';
import { runCli } from './testing.ts';

let dir: string;
let env: Record<string, string | undefined>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-lock-wait-'));
  env = { TOOLROW_DATA_DIR: dir, DATABASE_URL: undefined, TOOLROW_PROFILE: undefined };
  // The first open creates the embedded database.
  expect((await runCli(['staging', 'list'], env)).stdout).toBe('Nothing staged.\n');
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill();
  await rm(dir, { recursive: true, force: true });
});

/** Another "toolrow" command holding the data dir: a live process named in the lock file. */
async function holdDataDir(command: string): Promise<ChildProcess> {
  const holder = spawn('sleep', ['60']);
  children.push(holder);
  await writeFile(
    join(dir, 'pgdata.lock'),
    JSON.stringify({ pid: holder.pid, hostname: hostname(), startedAt: new Date().toISOString(), command }),
  );
  return holder;
}

describe('a command while another holds the embedded database', () => {
  it('says it waits, and runs once the holder is done', async () => {
    const holder = await holdDataDir('toolrow staging commit');
    let stdout = '';
    let stderr = '';
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    const io: CommandIo = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
        // The holder finishes only after the second command said it is waiting for it.
        if (/^Waiting for process/.test(text)) holder.kill();
      },
      env: { ...process.env, ...env },
      cwd: dir,
    };
    const code = await run(['staging', 'list'], io);
    await exited;
    expect(stderr).toBe(
      `Waiting for process ${holder.pid} (toolrow staging commit) to finish with the embedded database… Ctrl-C stops waiting.\n`,
    );
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'Nothing staged.\n' });
  });

  it('with TOOLROW_LOCK_WAIT=0 it refuses at once, naming the holder', async () => {
    const holder = await holdDataDir('toolrow db seed');
    const result = await runCli(['staging', 'list'], { ...env, TOOLROW_LOCK_WAIT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `already open in process ${holder.pid} on .*toolrow db seed.*one process per data directory`,
      ),
    );
    expect(result.stderr).not.toMatch(/Waiting for process/);
    holder.kill();
  });
});
