// `<data dir>/app.json`: how the `toolrow` CLI finds the app running on its data dir, so the
// user's commands go through the app (which holds the embedded database) instead of failing on
// its lock. It holds the token, so it is owner-only, and it goes away when the app stops.
import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, link, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir } from '@toolrow/datasource-utils';

export const APP_FILE = 'app.json';

/**
 * The header a command sends with every request it makes through the app: the connection it was
 * asked to act on. The app serves exactly that one (not the one active in its header).
 */
export const CONNECTION_HEADER = 'x-toolrow-connection';

export interface AppFile {
  /** The base URL, without the token: http://127.0.0.1:<port> */
  url: string;
  port: number;
  pid: number;
  token: string;
  startedAt: string;
}

/** The app running on this data dir, with the file's path: a file naming a dead process is ignored. */
export interface RunningApp extends AppFile {
  file: string;
}

/** A second app asked to start on a data dir another live process serves. */
export class AppAlreadyRunningError extends Error {
  override name = 'AppAlreadyRunningError';
  readonly running: RunningApp;
  constructor(dataDir: string, running: RunningApp) {
    super(alreadyRunningMessage(dataDir, running));
    this.running = running;
  }
}

/** Why a second start on one data dir is refused, and the two ways on. */
export function alreadyRunningMessage(dataDir: string, running: RunningApp): string {
  return `Toolrow is already running on this data dir (${dataDir}): ${running.url} (process ${running.pid}, started ${running.startedAt}). Open that one (the CLI and MCP go through it), or stop it first. A second instance needs a data dir of its own: TOOLROW_DATA_DIR=<another folder> npm start -- --port <another port>.`;
}

/**
 * Writes the file (0600, atomically: a reader never sees half of it); returns how to remove it.
 * Refuses (AppAlreadyRunningError) when another live process's app holds it: the first app keeps
 * its file, so the CLI and MCP never lose it.
 */
export async function writeAppFile(dataDir: string, app: Omit<AppFile, 'pid' | 'startedAt'>) {
  const file = join(dataDir, APP_FILE);
  const content: AppFile = { ...app, pid: process.pid, startedAt: new Date().toISOString() };
  const temporary = `${file}.${process.pid}.tmp`;
  await ensurePrivateDir(dataDir, 'The Toolrow data directory');
  try {
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600); // mode applies only when the file is created
    // link() fails when the file exists: of two apps starting at once, one gets it.
    for (let attempt = 0; ; attempt++) {
      try {
        await link(temporary, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
        const holder = findRunningApp(dataDir);
        if (holder && holder.pid !== process.pid) throw new AppAlreadyRunningError(dataDir, holder);
        // A file a dead process (or this one, for an app it closed uncleanly) left: replace it.
        await unlink(file).catch(() => {});
      }
    }
  } catch (error) {
    if (error instanceof AppAlreadyRunningError) throw error;
    throw new Error(
      `Could not write ${file}: ${(error as Error).message}. The toolrow CLI reads it to reach the running app; make ${dataDir} writable.`,
      { cause: error },
    );
  } finally {
    await unlink(temporary).catch(() => {});
  }
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    // Only our own: another app on this data dir (with its data elsewhere) may have replaced it.
    const current = readAppFileAt(file);
    if (current?.pid === content.pid && current.port === content.port) {
      try {
        unlinkSync(file);
      } catch {}
    }
  };
  // A crash that skips close() still runs exit handlers; a SIGKILL leaves a file naming a dead pid.
  process.on('exit', remove);
  return { file, remove };
}

/** The app named by `<dataDir>/app.json`, when that file exists and its process is alive. */
export function findRunningApp(dataDir: string): RunningApp | null {
  const file = join(dataDir, APP_FILE);
  const app = readAppFileAt(file);
  return app && alive(app.pid) ? { ...app, file } : null;
}

function readAppFileAt(file: string): AppFile | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<AppFile>;
    if (
      typeof value.url === 'string' &&
      typeof value.token === 'string' &&
      Number.isInteger(value.pid) &&
      Number.isInteger(value.port)
    ) {
      return value as AppFile;
    }
    return null;
  } catch {
    return null;
  }
}

/** Whether a process of this machine runs (one of another user's counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
