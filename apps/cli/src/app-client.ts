// While `npm start` runs, the app holds the embedded database (one process per data dir), so the
// user's own commands go through the app: it wrote its URL and token to <data dir>/app.json.
import { hostname } from 'node:os';
import { DataDirHeldError, isDataSourceError } from '@toolrow/datasource';
import { alive, CONNECTION_HEADER, findRunningApp, type RunningApp } from '@toolrow/server/app-file';
import { openToolrow, resolveConnectionName, resolveDataDir, type Toolrow } from '@toolrow/state';
import type { CommandIo } from './command.ts';

export type { RunningApp };

/** The running app, and the connection this command acts on through it (every request names it). */
export interface AppRoute extends RunningApp {
  connection: string;
}

/** The app running on the data dir this command would open, if any. */
export function runningApp(io: CommandIo): RunningApp | null {
  return findRunningApp(resolveDataDir({ env: io.env, cwd: io.cwd }));
}

/**
 * Opens the database, or, when that fails because it is taken and app.json names a live app,
 * returns the app to go through instead, with the connection this command was asked for: the app
 * acts on that one, whichever its header shows. Any other failure is the command's.
 */
export async function openOrApp(io: CommandIo): Promise<{ toolrow: Toolrow } | { app: AppRoute }> {
  const team = teamApp(io);
  if (team)
    return { app: { ...team, connection: await resolveConnectionName({ env: io.env, cwd: io.cwd }) } };
  try {
    return { toolrow: await openToolrowWaiting(io) };
  } catch (error) {
    const app = isDataSourceError(error) && error.code === 'connection' ? runningApp(io) : null;
    if (app)
      return { app: { ...app, connection: await resolveConnectionName({ env: io.env, cwd: io.cwd }) } };
    throw error;
  }
}

/**
 * A team's Toolrow (TOOLROW_URL): every command goes through it as the person whose personal token
 * TOOLROW_TOKEN is (made in the app), never to the database itself.
 */
function teamApp(io: CommandIo): RunningApp | null {
  const url = io.env.TOOLROW_URL?.trim();
  if (!url) return null;
  const token = io.env.TOOLROW_TOKEN?.trim();
  if (!token)
    throw new Error(
      `TOOLROW_URL names a team's Toolrow (${url}); set TOOLROW_TOKEN to a personal token made there (sign in, then POST /api/team/tokens with { "name": "laptop" }).`,
    );
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new Error(
      `TOOLROW_URL must be the team's Toolrow URL, e.g. https://toolrow.example.com (got '${url}').`,
    );
  }
  return {
    url: base.origin,
    port: Number(base.port) || (base.protocol === 'https:' ? 443 : 80),
    token,
    pid: 0,
    startedAt: '',
    file: 'TOOLROW_URL',
  };
}

const DEFAULT_LOCK_WAIT_SECONDS = 60;

/**
 * Opens the database; while another toolrow command of this machine has the embedded one open,
 * waits for it to finish (saying so once) rather than failing at once: two commands typed one
 * after the other should both work. The app is not waited for (commands go through it), nor a
 * holder on another machine. TOOLROW_LOCK_WAIT sets the most seconds to wait (0: do not wait).
 */
export async function openToolrowWaiting(io: CommandIo): Promise<Toolrow> {
  const limit = Number(io.env.TOOLROW_LOCK_WAIT ?? DEFAULT_LOCK_WAIT_SECONDS);
  const deadline =
    Date.now() + (Number.isFinite(limit) && limit >= 0 ? limit : DEFAULT_LOCK_WAIT_SECONDS) * 1000;
  let waited = false;
  for (;;) {
    try {
      return await openToolrow({ env: io.env, cwd: io.cwd });
    } catch (error) {
      const held = error instanceof DataDirHeldError ? error.owner : null;
      const waitable =
        held !== null &&
        held.pid !== process.pid &&
        held.hostname === hostname() &&
        held.pid !== runningApp(io)?.pid;
      if (!waitable || Date.now() >= deadline) {
        if (waitable && waited) {
          throw new Error(
            `${(error as Error).message} (Waited ${Math.round(limit)} s for it; TOOLROW_LOCK_WAIT sets how long.)`,
          );
        }
        throw error;
      }
      if (!waited) {
        io.stderr(
          `Waiting for process ${held.pid} (${held.command || 'another toolrow command'}) to finish with the embedded database… Ctrl-C stops waiting.\n`,
        );
        waited = true;
      }
      while (alive(held.pid) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

/** An error answer of the app, as the server shapes it: `{ error: { message, hint, code } }`. */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly code: string;
  readonly hint: string | undefined;
  constructor(status: number, code: string, message: string, hint?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

/** The headers of a request to the app: its token, and the connection the command acts on. */
export function appHeaders(app: AppRoute): Record<string, string> {
  return { authorization: `Bearer ${app.token}`, [CONNECTION_HEADER]: app.connection };
}

/** POST a JSON body to the app as its user (the token from app.json); the JSON answer. */
export function postToApp<T>(app: AppRoute, path: string, body: unknown): Promise<T> {
  return requestApp<T>(app, path, body);
}

/** GET from the app as its user; the JSON answer. */
export function getFromApp<T>(app: AppRoute, path: string): Promise<T> {
  return requestApp<T>(app, path);
}

async function requestApp<T>(app: AppRoute, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(
      `${app.url}${path}`,
      body === undefined
        ? { headers: appHeaders(app) }
        : {
            method: 'POST',
            headers: { ...appHeaders(app), 'content-type': 'application/json' },
            body: JSON.stringify(body),
          },
    );
  } catch (error) {
    const reason = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new Error(
      app.file === 'TOOLROW_URL'
        ? `The team's Toolrow at ${app.url}/ (TOOLROW_URL) did not answer: ${reason}.`
        : `The Toolrow app in ${app.file} (process ${app.pid}, ${app.url}/) did not answer: ${reason}. If it is not running any more, delete that file and run this again.`,
    );
  }
  const data = (await response.json().catch(() => null)) as
    | (T & { error?: undefined })
    | { error?: { message?: string; hint?: string; code?: string } }
    | null;
  if (response.ok && data) return data as T;
  const error = data?.error;
  if (response.status === 401) {
    throw new AppError(
      401,
      'unauthorized',
      app.file === 'TOOLROW_URL'
        ? `The team's Toolrow at ${app.url}/ refused TOOLROW_TOKEN: ${error?.message ?? 'unauthorized'} Make a new personal token in the app (it may have been revoked, expired, or you were removed).`
        : `The Toolrow app at ${app.url}/ refused the token in ${app.file}: ${error?.message ?? 'unauthorized'} Restart the app (it writes a new file), or stop it to use the database directly.`,
    );
  }
  const message =
    error?.message ?? `The Toolrow app at ${app.url}/ answered HTTP ${response.status} to ${path}.`;
  throw new AppError(
    response.status,
    error?.code ?? 'failed',
    error?.hint ? `${message} ${error.hint}` : message,
    error?.hint,
  );
}

/** Why a command that cannot go through the app fails while it runs: where the app is, what to do. */
export function heldByAppMessage(command: string, app: RunningApp): string {
  return `The Toolrow app is running on this data dir at ${app.url}/ (process ${app.pid}, since ${app.startedAt}) and holds the embedded database, so \`toolrow ${command}\` cannot open it. Use the app, or stop it (Ctrl+C where \`npm start\` runs) and run this again. \`toolrow staging\`, \`toolrow call\` and \`toolrow mcp --stdio\` work while it runs: they go through the app.`;
}

/**
 * The failure of a command that has no way through the app, explained when the app is why: the
 * data-dir lock names the process that holds it, and app.json says that process is the app.
 */
export function explainHeldDatabase(command: string, error: unknown, io: CommandIo): string | null {
  if (!isDataSourceError(error) || error.code !== 'connection') return null;
  const app = runningApp(io);
  if (!app) return null;
  if (error.message.includes(`in process ${app.pid} `)) return heldByAppMessage(command, app);
  return `${error.message}\n(The Toolrow app is running on this data dir at ${app.url}/, process ${app.pid}.)`;
}
