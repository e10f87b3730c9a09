// API keys of the models chosen in Settings. Never in the state store (which may be a team's
// server) and never in plain text in the data dir: each key is sealed with AES-256-GCM under a
// secret kept outside the data dir (a copied, synced or backed-up data dir carries no usable key),
// bound to its profile's name so a sealed key cannot be moved to another profile.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';

/** The sealed keys of a data dir. */
export const MODEL_KEYS_FILE = 'model-keys.json';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the sealing secret lives: TOOLROW_KEY_FILE, else $XDG_CONFIG_HOME/toolrow/secret.key, else
 * ~/.config/toolrow/secret.key. Never inside the data dir.
 */
export function sealingKeyPath(env: Env, dataDir: string): string {
  const file = env.TOOLROW_KEY_FILE?.trim()
    ? resolve(env.TOOLROW_KEY_FILE.trim())
    : join(
        env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.config'),
        'toolrow',
        'secret.key',
      );
  const inside = relative(resolve(dataDir), file);
  if (!inside.startsWith('..') && !inside.startsWith('/')) {
    throw new DataSourceError(
      'config',
      `The key that seals model API keys would be ${file}, inside the data dir ${dataDir}, where a copy of the data dir would carry it. Set TOOLROW_KEY_FILE to a path outside it.`,
    );
  }
  return file;
}

async function privateFile(file: string, what: string): Promise<Buffer | undefined> {
  try {
    const info = await stat(file);
    if ((info.mode & 0o077) !== 0) {
      throw new DataSourceError(
        'config',
        `${file} holds ${what} and other accounts can read it (mode ${(info.mode & 0o777).toString(8)}). Run chmod 600 ${file}, then try again.`,
      );
    }
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writePrivate(file: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

async function sealingKey(env: Env, dataDir: string, create: boolean): Promise<Buffer | undefined> {
  const file = sealingKeyPath(env, dataDir);
  const existing = await privateFile(file, 'the secret that seals model API keys');
  if (existing) {
    const key = Buffer.from(existing.toString('utf8').trim(), 'base64');
    if (key.length !== 32)
      throw new DataSourceError(
        'config',
        `${file} is not a Toolrow sealing key (32 bytes, base64). Remove it and enter the model keys again.`,
      );
    return key;
  }
  if (!create) return undefined;
  const key = randomBytes(32);
  await writePrivate(file, `${key.toString('base64')}\n`);
  return key;
}

async function readSealed(dataDir: string): Promise<Record<string, string>> {
  const file = join(dataDir, MODEL_KEYS_FILE);
  const text = await privateFile(file, 'sealed model API keys');
  if (!text) return {};
  const parsed = JSON.parse(text.toString('utf8')) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new DataSourceError(
      'config',
      `${file} is not a JSON object of sealed keys. Remove it and enter the model keys again in Settings.`,
    );
  return Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Whether a key is saved for the profile (without unsealing it). */
export async function hasModelKey(dataDir: string, profile: string): Promise<boolean> {
  return profile in (await readSealed(dataDir));
}

/** The profile's API key, unsealed; undefined when none is saved or the sealing secret is gone. */
export async function readModelKey(env: Env, dataDir: string, profile: string): Promise<string | undefined> {
  const sealed = (await readSealed(dataDir))[profile];
  if (!sealed) return undefined;
  const key = await sealingKey(env, dataDir, false);
  const [version, iv, tag, data] = sealed.split(':');
  if (!key || version !== 'v1' || !iv || !tag || !data) {
    throw new DataSourceError(
      'config',
      `The saved API key of profile '${profile}' cannot be unsealed here (${key ? 'it is damaged' : `no sealing secret at ${sealingKeyPath(env, dataDir)}`}). Enter the key again in Settings → Model.`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(`toolrow-model-key:${profile}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new DataSourceError(
      'config',
      `The saved API key of profile '${profile}' does not unseal with ${sealingKeyPath(env, dataDir)} (another machine's secret, or a damaged file). Enter the key again in Settings → Model.`,
    );
  }
}

/** Seals and saves (or, with undefined, forgets) the profile's API key. */
export async function writeModelKey(
  env: Env,
  dataDir: string,
  profile: string,
  apiKey: string | undefined,
): Promise<void> {
  const sealed = await readSealed(dataDir);
  const file = join(dataDir, MODEL_KEYS_FILE);
  if (apiKey === undefined) {
    if (!(profile in sealed)) return;
    delete sealed[profile];
    if (Object.keys(sealed).length === 0) await rm(file, { force: true });
    else await writePrivate(file, `${JSON.stringify(sealed, null, 2)}\n`);
    return;
  }
  const key = (await sealingKey(env, dataDir, true)) as Buffer;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`toolrow-model-key:${profile}`));
  const data = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  sealed[profile] = ['v1', iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
    .join(':');
  await writePrivate(file, `${JSON.stringify(sealed, null, 2)}\n`);
}
