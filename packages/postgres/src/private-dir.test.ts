// Toolrow's data directory is its user's alone: created 0700, refused (with the fix) when another
// account can open it or owns it, and proven with a real second account when the tests run as root.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDataSourceError } from '@toolrow/datasource';
import { ensurePrivateDir } from '@toolrow/datasource-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './drivers/open.ts';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** Runs a script as the `nobody` account; its exit code and output. */
function asNobody(script: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the data directory is private', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolrow-private-'));
    // The temp root itself must be enterable by the other account for the test to mean anything.
    await chmod(root, 0o755);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('a missing directory is created 0700, parents too, whatever the umask', async () => {
    const dir = join(root, 'fresh', 'nested');
    const previous = process.umask?.(0o022);
    try {
      await ensurePrivateDir(dir, 'The Toolrow data directory');
    } finally {
      if (previous !== undefined) process.umask(previous);
    }
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it.each([0o755, 0o750, 0o705, 0o777, 0o701])(
    'a directory of mode %o is refused, naming the fix, and left as it was',
    async (mode) => {
      const dir = join(root, `open-${mode.toString(8)}`);
      await mkdir(dir);
      await chmod(dir, mode);
      const error = await ensurePrivateDir(dir, 'The Toolrow data directory').catch(
        (caught: unknown) => caught,
      );
      expect(isDataSourceError(error) && error.code).toBe('config');
      expect((error as Error).message).toContain(`(mode ${mode.toString(8)})`);
      expect((error as Error).message).toContain(`chmod -R go-rwx '${dir}'`);
      expect((await stat(dir)).mode & 0o777).toBe(mode);
    },
  );

  it('an embedded database will not open in a data directory others can read', async () => {
    const dataDir = join(root, 'shared-data');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    await expect(openDatabase({ env: {}, dataDir, worker: false })).rejects.toThrow(/chmod -R go-rwx/);
    expect(await readdir(dataDir)).toEqual([]);
  });

  describe.runIf(isRoot)('as another local account (the tests run as root)', () => {
    it('a directory owned by another account is refused', async () => {
      const dir = join(root, 'theirs');
      await mkdir(dir, { mode: 0o700 });
      const { chown } = await import('node:fs/promises');
      await chown(dir, NOBODY, NOBODY);
      await expect(ensurePrivateDir(dir, 'The Toolrow data directory')).rejects.toThrow(
        /belongs to another account/,
      );
    });

    it('cannot list, read or write anything in an embedded data directory', async () => {
      const dataDir = join(root, 'embedded');
      const db = await openDatabase({ env: {}, dataDir, worker: false });
      await db.exec('CREATE TABLE secrets (v text); INSERT INTO secrets VALUES ($$s3cret$$)');
      await db.close();
      const pgVersion = join(dataDir, 'pgdata', 'PG_VERSION');
      for (const [what, script] of [
        ['list the data directory', `require('fs').readdirSync(${JSON.stringify(dataDir)})`],
        ['read a cluster file', `require('fs').readFileSync(${JSON.stringify(pgVersion)})`],
        ['write a cluster file', `require('fs').appendFileSync(${JSON.stringify(pgVersion)}, 'x')`],
        ['create a file', `require('fs').writeFileSync(${JSON.stringify(join(dataDir, 'planted'))}, 'x')`],
      ] as const) {
        const attempt = asNobody(script);
        expect({ what, status: attempt.status, denied: /EACCES/.test(attempt.output) }).toEqual({
          what,
          status: 1,
          denied: true,
        });
      }
    });
  });
});
