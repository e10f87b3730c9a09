// Passwords of named connections: never in the state store (which may be a team's server) and
// never in a listing. They live in one file of the data dir that only the user can read, written
// whole and renamed into place, so a crash leaves the old file or the new one.
import { chmod, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';

/** The secrets file of a data dir. */
export const SECRETS_FILE = 'connection-secrets.json';

export function secretsPath(dataDir: string): string {
  return join(dataDir, SECRETS_FILE);
}

/** The stored passwords by connection name; none when the file does not exist. */
export async function readSecrets(dataDir: string): Promise<Record<string, string>> {
  const file = secretsPath(dataDir);
  let text: string;
  try {
    const info = await stat(file);
    if ((info.mode & 0o077) !== 0) {
      throw new DataSourceError(
        'config',
        `${file} holds connection passwords and other accounts can read it (mode ${(info.mode & 0o777).toString(8)}). Run chmod 600 ${file}, then try again.`,
      );
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(
        Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
    }
  } catch {
    // Reported below.
  }
  throw new DataSourceError(
    'config',
    `${file} is not a JSON object of connection passwords. Fix or remove it (then add the connections' passwords again with toolrow connections add).`,
  );
}

/** Stores (or, with undefined, forgets) one connection's password. */
export async function writeSecret(
  dataDir: string,
  name: string,
  password: string | undefined,
): Promise<void> {
  const secrets = await readSecrets(dataDir);
  if (password === undefined) {
    if (!(name in secrets)) return;
    delete secrets[name];
  } else {
    secrets[name] = password;
  }
  const file = secretsPath(dataDir);
  if (Object.keys(secrets).length === 0) {
    await rm(file, { force: true });
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
