import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DataDirHeldError, type DataDirOwner } from '@toolrow/datasource';

type LockOwner = DataDirOwner;

/** A held lock: release it when the database closes. */
export interface DataDirLock {
  path: string;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * PGlite is one process's database: two processes on one data directory corrupt it. The lock is a
 * file beside the cluster holding the owner's pid; a lock whose process is gone is taken over.
 */
export function lockDataDir(pgdata: string, dataDirSource: string): DataDirLock {
  const path = `${pgdata}.lock`;
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: process.argv.slice(1).join(' '),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, `${JSON.stringify(owner)}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readOwner(path);
      const held = current && (current.hostname !== owner.hostname || alive(current.pid));
      if (held) {
        const who =
          current.pid === process.pid ? 'this process' : `process ${current.pid} on ${current.hostname}`;
        throw new DataDirHeldError(
          current,
          `The embedded database in ${pgdata} is already open in ${who} (since ${current.startedAt}: ${current.command || 'unknown command'}). ` +
            `PGlite allows one process per data directory. Stop that process first, point ${dataDirSource} at another directory, ` +
            'or share a PostgreSQL server between the processes with DATABASE_URL.',
        );
      }
      // The owner is gone (a crash or a kill): take the lock over.
      unlinkSync(path);
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readOwner(path)?.pid === process.pid) unlinkSync(path);
  };
  process.on('exit', release);
  return { path, release };
}
