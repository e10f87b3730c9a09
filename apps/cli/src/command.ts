/** Where a command writes; tests pass buffers, the CLI passes the process streams. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The environment the command reads its settings from (TOOLROW_*, DATABASE_URL, …). */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export interface Command {
  /** The usage line(s), printed on --help and after a usage error. */
  usage: string;
  /** Returns the exit code. Throw UsageError for bad arguments. */
  run(args: string[], io: CommandIo): Promise<number>;
}

/** Bad arguments: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
