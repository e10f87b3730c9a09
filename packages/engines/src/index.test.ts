// The installed engines: each URL form goes to its engine and driver, and the registry is cheap to
// import (the apps load it on every command): no driver, no AWS SDK, no DuckDB until one opens.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installedEngines } from './index.ts';

describe('the installed engines', () => {
  it('say what they can do: a sort by any column is PostgreSQL’s and SQLite’s, not DynamoDB’s (key order)', () => {
    const has = (id: string) => installedEngines.byId(id).features.includes('anyColumnSort');
    expect([has('postgres'), has('sqlite'), has('mysql'), has('dynamodb')]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it.each([
    ['postgres://me:pw@db:5432/shop', 'postgres', 'postgres', 'PostgreSQL me@db:5432/shop'],
    ['postgresql://db/shop', 'postgres', 'postgres', 'PostgreSQL db:5432/shop'],
    ['pglite:./data', 'postgres', 'pglite', 'PGlite /home/u/data'],
    [
      'dynamodb://127.0.0.1:8000?region=eu-west-1',
      'dynamodb',
      'dynamodb',
      expect.stringMatching(/127\.0\.0\.1:8000/),
    ],
    ['mysql://me@db/shop', 'mysql', 'mysql', 'MySQL me@db:3306/shop'],
    ['mariadb://me@db:3307/shop', 'mysql', 'mysql', 'MariaDB me@db:3307/shop'],
  ])('%s is %s through %s', (url, engine, driver, description) => {
    expect(installedEngines.parseUrl(url, { cwd: '/home/u', field: 'url' })).toMatchObject({
      engine,
      driver,
      description,
    });
    expect(installedEngines.driver(driver)?.engine.id).toBe(engine);
  });

  it('opens the embedded sample when no URL is given, and names every form when a URL is no engine’s', () => {
    expect(installedEngines.fallback.drivers.find((driver) => driver.embedded)?.id).toBe('pglite');
    expect(() => installedEngines.forUrl('oracle://h/db')).toThrow(
      /postgres:\/\/user@host:5432\/database .*pglite:<directory>.*dynamodb:\/\/127\.0\.0\.1:8000/,
    );
  });

  /** What importing `entry` resolves beyond Toolrow's own files and these builtins. */
  const foreignImports = async (entry: string): Promise<string[]> => {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = new Set();
      registerHooks({
        resolve(specifier, context, next) {
          if (!/^(\\.|\\/|file:|@toolrow\\/|node:(path|url)$)/.test(specifier)) seen.add(specifier);
          return next(specifier, context);
        },
      });
      await import(${JSON.stringify('ENTRY')});
      console.log(JSON.stringify([...seen]));`.replace('"ENTRY"', JSON.stringify(entry));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
  };

  // Any package or builtin beyond those (a driver such as pg, the AWS SDK, DuckDB, node:sqlite)
  // loaded at import fails this: an engine loads its driver when a connection opens.
  it('importing the registry loads no driver, SDK or query engine, nor any package but its own', async () => {
    expect(await foreignImports(new URL('./index.ts', import.meta.url).href)).toEqual([]);
  });

  it('the check above sees a driver imported at an engine’s top (node:sqlite here)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolrow-engine-probe-'));
    try {
      const probe = join(dir, 'probe.mjs');
      await writeFile(
        probe,
        `import 'node:sqlite';\nexport * from ${JSON.stringify(new URL('./index.ts', import.meta.url).href)};\n`,
      );
      expect(await foreignImports(pathToFileURL(probe).href)).toEqual(['node:sqlite']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
