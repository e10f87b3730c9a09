// The secret that signs the agent's approval requests. A random one per process would make a
// pending approval in a saved conversation unanswerable after a restart, so `npm start` keeps one
// beside the data (unless TOOLROW_APPROVAL_SECRET gives one).
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir } from '@toolrow/datasource-utils';

export const APPROVAL_SECRET_FILE = 'approval-secret';

const MIN_LENGTH = 32;

/** Reads `<dir>/approval-secret`, creating it (owner-only, 256 random bits) when missing or too short. */
export async function loadApprovalSecret(dir: string): Promise<string> {
  const file = join(dir, APPROVAL_SECRET_FILE);
  const existing = await readSecret(file);
  if (existing) return existing;
  await ensurePrivateDir(dir, 'The Toolrow data directory');
  const secret = randomBytes(32).toString('base64url');
  // Written aside and put in place whole, so no reader sees a half-written (too short) file.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${secret}\n`, { mode: 0o600 });
    // link() when there is none: of two processes starting at once, one places it and both read it.
    if (existing === null) await link(temporary, file);
    else await rename(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new Error(
        `Could not write the approval secret to ${file}: ${(error as Error).message}. Make the folder writable, or set TOOLROW_APPROVAL_SECRET.`,
        { cause: error },
      );
    }
  } finally {
    await rm(temporary, { force: true });
  }
  return (await readSecret(file)) || secret;
}

/** The secret, '' when the file is there but unusable, null when there is no file. */
async function readSecret(file: string): Promise<string | null> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return text.length >= MIN_LENGTH ? text : '';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(
      `Could not read the approval secret at ${file}: ${(error as Error).message}. Fix its permissions, or set TOOLROW_APPROVAL_SECRET.`,
      { cause: error },
    );
  }
}
