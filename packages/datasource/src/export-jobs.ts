// What every engine's exporter shares: where an export file may go, and jobs kept in memory.
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DataSourceError } from './errors.ts';
import type { ExportJob, ExportJobStore } from './exports.ts';

function refuse(requested: string, why: string): DataSourceError {
  return new DataSourceError(
    'export-path',
    `Export path '${requested}' is refused: ${why}. Give a file name or a relative path inside the exports folder.`,
  );
}

function inside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** The real path of the deepest existing ancestor of `target`, with the missing tail appended. */
async function realTarget(target: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  while (true) {
    try {
      const real = await realpath(current);
      return missing.length > 0 ? join(real, ...missing.reverse()) : real;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(current);
      if (parent === current) return target;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Resolves a requested export path inside dir; throws DataSourceError 'export-path' when it escapes. */
export async function resolveExportPath(dir: string, requested: string): Promise<string> {
  if (typeof requested !== 'string' || requested.trim() === '')
    throw refuse(String(requested), 'it is empty');
  if (requested.includes('\u0000')) throw refuse(requested, 'it contains a NUL character');
  const root = resolve(dir);
  const target = resolve(root, requested);
  if (!inside(root, target)) {
    throw refuse(
      requested,
      isAbsolute(requested)
        ? 'an absolute path outside the exports folder'
        : 'it leads outside the exports folder',
    );
  }
  const realRoot = await realpath(root).catch(() => root);
  const real = await realTarget(target);
  if (!inside(realRoot, real))
    throw refuse(requested, 'it goes through a symbolic link that leads outside the exports folder');
  const stat = await lstat(target).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw refuse(requested, 'the file is a symbolic link');
  if (stat?.isDirectory()) throw refuse(requested, 'it is a directory');
  return target;
}

/**
 * Export jobs kept in this process only: for an export engine used without Toolrow's state store
 * (scripts, benchmarks, the data layer's own tests). The app records its jobs in @toolrow/state.
 */
export function createMemoryExportJobStore(): ExportJobStore {
  const jobs = new Map<string, ExportJob>();
  const update = (id: string, patch: Partial<ExportJob>) => {
    const job = jobs.get(id);
    if (job) jobs.set(id, { ...job, ...patch });
  };
  return {
    async create(job) {
      const created: ExportJob = {
        ...job,
        state: 'queued',
        rowsDone: 0,
        bytesWritten: 0,
        error: null,
        createdAt: new Date(),
        startedAt: null,
        finishedAt: null,
      };
      jobs.set(job.id, created);
      return { ...created };
    },
    async markRunning(id) {
      if (jobs.get(id)?.state === 'queued') update(id, { state: 'running', startedAt: new Date() });
    },
    async progress(id, rowsDone, bytesWritten) {
      update(id, { rowsDone, bytesWritten });
    },
    async finish(id, outcome) {
      update(id, {
        state: outcome.state,
        rowsDone: outcome.rowsDone,
        ...(outcome.bytesWritten !== undefined ? { bytesWritten: outcome.bytesWritten } : {}),
        error: outcome.error,
        finishedAt: new Date(),
      });
    },
    async get(id) {
      const job = jobs.get(id);
      if (!job) throw new DataSourceError('not-found', `No export job with id '${id}'.`);
      return { ...job };
    },
  };
}
