import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';

/** Mode bits that let another account in: any group or other permission. */
const OPEN_TO_OTHERS = 0o077;

const quote = (path: string) => `'${path.replaceAll("'", "'\\''")}'`;

/**
 * Makes `dir` (and any missing parent) readable by its user only, and refuses a directory that
 * another account can enter or that belongs to another account. Toolrow's data directory holds the
 * app token, OAuth and MCP tokens, the audit log, exports and the embedded databases: a local
 * account that can write into it can make itself a superuser of the embedded database, and one that
 * can read it can read everything. The check runs at every start; a directory Toolrow creates is
 * 0700 from the start.
 */
export async function ensurePrivateDir(dir: string, what: string): Promise<void> {
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataSourceError(
      'config',
      `Cannot create ${what} ${dir}: ${(error as Error).message}. Point it at a directory you can write.`,
      { cause: error },
    );
  }
  // mkdir's mode passes through the umask, which may be looser: set it exactly on what we made.
  if (created !== undefined) await chmod(dir, 0o700);
  const info = await stat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new DataSourceError(
      'config',
      `${what} ${dir} belongs to another account (uid ${info.uid}, you are ${uid}). It holds tokens and databases that must be yours alone: use a directory of your own (TOOLROW_DATA_DIR), or take it over with: chown -R ${uid} ${quote(dir)}`,
    );
  }
  if ((info.mode & OPEN_TO_OTHERS) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
    throw new DataSourceError(
      'config',
      `${what} ${dir} can be opened by other accounts on this machine (mode ${mode}). It holds your app token, MCP and OAuth tokens, the audit log, exports and the embedded databases, so Toolrow will not use it until it is yours alone. Run: chmod -R go-rwx ${quote(dir)} and start again.`,
    );
  }
}

/** Strips group and other permissions from every file and folder under `dir` (symlinks left alone). */
export async function ownerOnlyTree(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true });
  for (const entry of ['', ...entries]) {
    const path = join(dir, entry);
    const info = await lstat(path).catch(() => undefined);
    if (!info || info.isSymbolicLink() || (info.mode & OPEN_TO_OTHERS) === 0) continue;
    await chmod(path, info.mode & 0o7700).catch(() => {});
  }
}
