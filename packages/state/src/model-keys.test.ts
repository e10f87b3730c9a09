// The model chosen in Settings, per profile, and its API key: sealed under a secret outside the
// data dir, never in plain text in the data dir or the state store, bound to its profile.
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasModelKey, MODEL_KEYS_FILE, readModelKey, sealingKeyPath, writeModelKey } from './model-keys.ts';
import { testStores } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

const KEY = 'sk-test-7f3a9c2e5b1d4f6a8c0e2b4d6f8a0c2e';

let root: string;
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolrow-model-keys-'));
  dataDir = join(root, 'data');
  env = { XDG_CONFIG_HOME: join(root, 'config') };
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Every byte under a directory, as text. */
async function everything(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = names.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
}

describe('model API keys', () => {
  it('are sealed: the data dir holds no plain key, the secret lives outside it, both owner-only', async () => {
    await writeModelKey(env, dataDir, 'default', KEY);
    expect(await readModelKey(env, dataDir, 'default')).toBe(KEY);
    expect(await hasModelKey(dataDir, 'default')).toBe(true);
    expect(await everything(dataDir)).not.toContain(KEY);
    expect(await everything(dataDir)).not.toContain(Buffer.from(KEY).toString('base64'));
    const secret = sealingKeyPath(env, dataDir);
    expect(secret).toBe(join(root, 'config', 'toolrow', 'secret.key'));
    for (const file of [secret, join(dataDir, MODEL_KEYS_FILE)])
      expect((await stat(file)).mode & 0o777, file).toBe(0o600);
  });

  it('a sealed key moved to another profile does not unseal', async () => {
    const file = join(dataDir, MODEL_KEYS_FILE);
    const sealed = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    await writeFile(file, JSON.stringify({ ...sealed, other: sealed.default }), { mode: 0o600 });
    await expect(readModelKey(env, dataDir, 'other')).rejects.toThrow(
      /profile 'other' does not unseal .*Enter the key again in Settings/,
    );
    await writeModelKey(env, dataDir, 'other', undefined);
    expect(await hasModelKey(dataDir, 'other')).toBe(false);
  });

  it('without the secret (another machine) the key is not readable, and the message says what to do', async () => {
    const elsewhere = { XDG_CONFIG_HOME: join(root, 'other-machine') };
    await expect(readModelKey(elsewhere, dataDir, 'default')).rejects.toThrow(
      /no sealing secret at .*other-machine.*Enter the key again in Settings/,
    );
  });

  it('a secret file others can read is refused, naming the fix', async () => {
    const secret = sealingKeyPath(env, dataDir);
    await chmod(secret, 0o644);
    try {
      await expect(readModelKey(env, dataDir, 'default')).rejects.toThrow(`Run chmod 600 ${secret}`);
    } finally {
      await chmod(secret, 0o600);
    }
  });

  it('the secret may not live in the data dir', () => {
    expect(() => sealingKeyPath({ TOOLROW_KEY_FILE: join(dataDir, 'secret.key') }, dataDir)).toThrow(
      /inside the data dir .*Set TOOLROW_KEY_FILE to a path outside it/,
    );
  });

  it('forgetting the last key removes the file', async () => {
    await writeModelKey(env, dataDir, 'default', undefined);
    expect(await hasModelKey(dataDir, 'default')).toBe(false);
    await expect(stat(join(dataDir, MODEL_KEYS_FILE))).rejects.toThrow(/ENOENT/);
  });
});

describe.each(testStores())('the model saved per profile on $name', ({ open }) => {
  let toolrow: Toolrow;
  beforeAll(async () => {
    toolrow = await open();
  }, 60_000);
  afterAll(() => toolrow.close());

  it('is saved per profile, keeps only the known fields, and clears', async () => {
    const { models } = toolrow.state;
    expect(await models.get('default')).toBeNull();
    const saved = await models.set('default', {
      provider: 'openai-compatible',
      modelId: 'qwen3:8b',
      baseURL: 'http://127.0.0.1:11434/v1',
      // Not a field: never stored.
      ...({ apiKey: KEY } as object),
    } as Parameters<typeof models.set>[1]);
    expect(saved.setting).toEqual({
      provider: 'openai-compatible',
      modelId: 'qwen3:8b',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect((await models.get('default'))?.setting).toEqual(saved.setting);
    expect(await models.get('warehouse')).toBeNull();
    await models.set('default', { provider: 'bedrock', modelId: 'm', region: 'eu-west-1' });
    expect((await models.get('default'))?.setting).toEqual({
      provider: 'bedrock',
      modelId: 'm',
      region: 'eu-west-1',
    });
    const rows = await toolrow.state.db.q.selectFrom('settings').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(KEY);
    expect(await models.clear('default')).toBe(true);
    expect(await models.clear('default')).toBe(false);
    expect(await models.get('default')).toBeNull();
  });
});
