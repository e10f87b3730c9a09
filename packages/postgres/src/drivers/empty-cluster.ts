// An empty PGlite cluster, made once per PGlite version and kept in the user's cache folder
// (~/.cache/toolrow/pglite, owner-only): an in-memory database loads it instead of running initdb, which
// takes seconds and leaves PGlite's memory about 300 MB larger for the rest of the process.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensurePrivateDir } from '@toolrow/datasource-utils';
import { dumpEmbeddedDatabase } from './dump.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Where the cluster is kept: $XDG_CACHE_HOME/toolrow/pglite, else ~/.cache/toolrow/pglite (owner-only). */
export function clusterCacheDir(env: Env = process.env): string {
  return join(env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache'), 'toolrow', 'pglite');
}

async function cacheFile(env: Env): Promise<string> {
  const manifest = join(
    dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  );
  const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
  return join(clusterCacheDir(env), `pglite-${version}-empty-cluster.tar`);
}

/**
 * The empty cluster, from the cache or made now (and cached); undefined when neither works (a
 * read-only home, say): the caller then runs initdb as before.
 */
export async function emptyCluster(env: Env = process.env): Promise<Blob | undefined> {
  try {
    const file = await cacheFile(env);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      // Not made yet.
    }
    const blob = await dumpEmbeddedDatabase();
    await ensurePrivateDir(clusterCacheDir(env), "Toolrow's cache folder");
    // Write then rename: another process never reads half a cluster.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, new Uint8Array(await blob.arrayBuffer()), { mode: 0o600 });
    await rename(partial, file).catch(async (error: unknown) => {
      await rm(partial, { force: true });
      throw error;
    });
    return blob;
  } catch {
    return undefined;
  }
}

/** Drops a cached cluster that would not load (a damaged file): the next open makes it again. */
export async function forgetEmptyCluster(env: Env = process.env): Promise<void> {
  await rm(await cacheFile(env), { force: true }).catch(() => {});
}
