import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecrets, secretsPath, writeSecret } from './connection-secrets.ts';
import { checkConnectionName, parseConnectionUrl } from './named-connections.ts';
import type { AppStateHandle } from './state.ts';
import { openAppState } from './state.ts';

describe('what a user types for a connection', () => {
  it.each([
    [
      'postgres://me:s3cr%40t@db:5432/shop',
      'postgres',
      'postgres://me@db:5432/shop',
      's3cr@t',
      'PostgreSQL me@db:5432/shop',
    ],
    [
      'postgresql://me@db/shop',
      'postgres',
      'postgresql://me@db/shop',
      undefined,
      'PostgreSQL me@db:5432/shop',
    ],
    ['pglite:/var/data/x', 'pglite', 'pglite:/var/data/x', undefined, 'PGlite /var/data/x'],
    ['pglite:./x', 'pglite', 'pglite:/home/u/x', undefined, 'PGlite /home/u/x'],
  ])('%s', (raw, engine, url, password, description) => {
    const parsed = parseConnectionUrl(raw, '/home/u');
    expect(parsed.target).toMatchObject({ engine, url, description });
    expect(parsed.password).toBe(password);
    if (password !== undefined) {
      expect(new URL(parsed.target.url).password).toBe('');
      expect(`${parsed.target.url} ${parsed.target.description}`).not.toContain('s3cr');
    }
  });

  it.each([
    ['oracle://h/db', /url: the scheme 'oracle:' is not one Toolrow connects to/],
    ['h:5432/db', /url: the scheme 'h:' is not one/],
    ['localhost', /url: 'localhost' has no scheme/],
    ['pglite:', /url: pglite: needs a directory/],
    ['postgres://', /url/],
  ])('refuses %s, naming the field', (raw, message) => {
    expect(() => parseConnectionUrl(raw)).toThrow(message);
  });

  it.each(['Prod', '1st', 'a b', 'x'.repeat(41), '', 'default', 'semi;colon'])(
    'refuses the name %j',
    (name) => {
      expect(() => checkConnectionName(name)).toThrow(/^name: /);
    },
  );

  it.each(['a', 'prod-eu', 'local_2', 'x'.repeat(40)])('accepts the name %j', (name) => {
    expect(checkConnectionName(name)).toBe(name);
  });
});

describe('the secrets file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-secrets-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is 0600, holds each password once, and goes when the last one does', async () => {
    await writeSecret(dir, 'a', 'one');
    await writeSecret(dir, 'b', 'two"\n\\');
    expect((await stat(secretsPath(dir))).mode & 0o777).toBe(0o600);
    expect(await readSecrets(dir)).toEqual({ a: 'one', b: 'two"\n\\' });
    await writeSecret(dir, 'a', undefined);
    expect(await readSecrets(dir)).toEqual({ b: 'two"\n\\' });
    await writeSecret(dir, 'b', undefined);
    await expect(stat(secretsPath(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readSecrets(dir)).toEqual({});
  });

  it('is refused when other accounts can read it, saying how to fix it', async () => {
    await writeSecret(dir, 'a', 'one');
    await chmod(secretsPath(dir), 0o644);
    await expect(readSecrets(dir)).rejects.toThrow(/other accounts can read it \(mode 644\)\. Run chmod 600/);
    await chmod(secretsPath(dir), 0o600);
    expect(await readFile(secretsPath(dir), 'utf8')).toContain('"a": "one"');
  });
});

describe('named connections in the state store', () => {
  let state: AppStateHandle;
  beforeAll(async () => {
    state = await openAppState({ memory: true, env: {} });
  });
  afterAll(() => state?.close());

  it('adds, lists, refuses a taken name, sets exposure and the default, removes', async () => {
    const base = {
      engine: 'postgres' as const,
      url: 'postgres://me@db/shop',
      description: 'PostgreSQL me@db:5432/shop',
    };
    await state.connections.add({ name: 'shop', ...base });
    await expect(state.connections.add({ name: 'shop', ...base })).rejects.toMatchObject({
      code: 'already-exists',
    });
    await expect(
      state.connections.add({ name: 'leak', ...base, url: 'postgres://me:pw@db/shop' }),
    ).rejects.toThrow(/must not hold a password/);
    expect(await state.connections.get('shop')).toMatchObject({
      named: true,
      mcpScope: null,
      isDefault: false,
    });
    await state.connections.setMcpScope('shop', 'tables:staged');
    await state.connections.setDefault('shop');
    expect(await state.connections.defaultName()).toBe('shop');
    expect(await state.connections.get('shop')).toMatchObject({ mcpScope: 'tables:staged', isDefault: true });
    await expect(state.connections.setDefault('nope')).rejects.toThrow(
      /There is no connection named 'nope'\. The connections are: shop\./,
    );
    // The database refuses a scope that is none.
    await expect(state.connections.setMcpScope('shop', 'tables:root')).rejects.toThrow();
    expect(await state.connections.remove('shop')).toBe(true);
    expect(await state.connections.defaultName()).toBeUndefined();
    expect(await state.connections.remove('shop')).toBe(false);
  });
});
