import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { CommandIo } from './command.ts';
import { run } from './main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `toolrow <argv>` in this process, capturing what it prints. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = {},
  cwd = process.cwd(),
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { ...process.env, ...env },
    cwd,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** The real bin, as `npx toolrow` runs it. */
export const TOOLROW_BIN = join(import.meta.dirname, '../bin/toolrow.js');

/** Runs `toolrow <argv>` as a real child process. */
export function spawnCli(
  argv: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [TOOLROW_BIN, ...argv],
      { env: { ...process.env, ...options.env }, cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
