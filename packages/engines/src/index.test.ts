// The installed engines: each URL form goes to its engine and driver, and the registry is cheap to
// import (the apps load it on every command): no driver, no AWS SDK, no DuckDB until one opens.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { installedEngines } from './index.ts';

describe('the installed engines', () => {
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
    expect(() => installedEngines.forUrl('mysql://h/db')).toThrow(
      /postgres:\/\/user@host:5432\/database .*pglite:<directory>.*dynamodb:\/\/127\.0\.0\.1:8000/,
    );
  });

  it('importing the registry loads no driver, SDK or query engine', async () => {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = new Set();
      registerHooks({
        resolve(specifier, context, next) {
          if (/^(pg|pg-copy-streams|@electric-sql\\/pglite|@aws-sdk\\/[^/]+|@duckdb\\/[^/]+|libpg-query)(\\/|$)/.test(specifier)) seen.add(specifier);
          return next(specifier, context);
        },
      });
      await import(${JSON.stringify(new URL('./index.ts', import.meta.url).href)});
      console.log(JSON.stringify([...seen]));`;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual([]);
  });
});
