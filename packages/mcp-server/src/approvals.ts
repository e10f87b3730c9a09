// Where a gated MCP call waits for the user's answer in Manual mode (and Auto, for the calls Auto
// asks about): the approval inbox. The app holds one in memory and shows it; `toolrow mcp --stdio`
// running beside the app forwards its asks to the app's inbox over HTTP (remoteApprovals), so one
// inbox answers every client whatever transport it came in on.
import { randomUUID } from 'node:crypto';
import type { PermissionMode } from '@toolrow/agent';
import { isPermissionMode } from '@toolrow/agent';
import type { McpActor } from './backend.ts';
import type { McpToolName } from './generated/mcp-scopes.ts';
import { isMcpToolName } from './scopes.ts';

/** How long an ask waits for the user unless configured (TOOLROW_MCP_APPROVAL_TIMEOUT). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;
/** The environment variable that sets the wait: seconds (`90`), or `90s`, `5m`. */
export const APPROVAL_TIMEOUT_ENV = 'TOOLROW_MCP_APPROVAL_TIMEOUT';

/** One gated call waiting for the user, as the inbox shows it. */
export interface McpApprovalRequest {
  id: string;
  /** The client's name (the token's, or the OAuth client's): the audit actor is mcp:<client>. */
  client: string;
  actor: McpActor;
  tool: McpToolName;
  input: unknown;
  /** The tables the call concerns, when known. */
  tables?: readonly string[];
  mode: PermissionMode;
  /** Why the ladder asks ("Manual mode asks before every gated action."). */
  reason: string;
  profile: string;
  askedAt: string;
  expiresAt: string;
}

/** What the inbox needs to open an ask; the id and the times are its own. */
export type McpApprovalAsk = Omit<McpApprovalRequest, 'id' | 'askedAt' | 'expiresAt'>;

export type McpApprovalOutcome =
  | { kind: 'approved' }
  | { kind: 'denied'; reason?: string }
  /** Nobody answered within the wait. */
  | { kind: 'timeout'; waitedMs: number }
  /** The client went away (cancelled the call, or disconnected) before an answer. */
  | { kind: 'cancelled' };

/** Something that can ask the user about one call and wait for the answer. */
export interface McpApprovals {
  /** How long an ask waits before it becomes a refusal. */
  readonly timeoutMs: number;
  /** `timeoutMs` overrides the wait for this ask (a remote asker brings its own). */
  ask(
    ask: McpApprovalAsk,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<McpApprovalOutcome>;
}

export type McpApprovalEvent =
  | { type: 'asked'; request: McpApprovalRequest }
  | { type: 'settled'; request: McpApprovalRequest; outcome: McpApprovalOutcome };

/** The app's inbox: pending asks in memory, answered by the user (routes in apps/server). */
export interface ApprovalInbox extends McpApprovals {
  /** The asks waiting for an answer, oldest first. */
  pending(): McpApprovalRequest[];
  /** Answers one ask; false when there is no such pending ask (answered, expired or withdrawn). */
  answer(id: string, answer: { approved: boolean; reason?: string }): boolean;
  /** Every ask and every settlement, as they happen; returns the unsubscribe. */
  subscribe(listener: (event: McpApprovalEvent) => void): () => void;
  /** Settles every pending ask as cancelled (the app is shutting down). */
  close(): void;
}

/**
 * Parses the wait as configured: seconds (`90`), or with a unit (`90s`, `5m`). Throws naming the
 * variable and the forms it takes.
 */
export function parseApprovalTimeout(text: string, name = APPROVAL_TIMEOUT_ENV): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !(amount > 0)) {
    throw new Error(
      `Bad ${name} '${text}': give the time an approval waits for the user, in seconds (300) or with a unit (90s, 5m).`,
    );
  }
  const unit = match[2] ?? 's';
  return Math.round(amount * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000));
}

/** The wait from the environment, else the default. */
export function approvalTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const value = env[APPROVAL_TIMEOUT_ENV];
  return value === undefined || value.trim() === ''
    ? DEFAULT_APPROVAL_TIMEOUT_MS
    : parseApprovalTimeout(value);
}

/** Asks one client may have waiting in the user's inbox at once; more are refused at once. */
export const MAX_PENDING_ASKS_PER_CLIENT = 5;

/** A client asked while it already has MAX_PENDING_ASKS_PER_CLIENT asks waiting. */
export class TooManyPendingAsks extends Error {
  constructor(client: string) {
    super(
      `${client} already has ${MAX_PENDING_ASKS_PER_CLIENT} calls waiting for the user's approval; wait for those answers before making another call that needs one`,
    );
  }
}

export function createApprovalInbox(options: { timeoutMs?: number } = {}): ApprovalInbox {
  const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const waiting = new Map<
    string,
    { request: McpApprovalRequest; settle: (outcome: McpApprovalOutcome) => void }
  >();
  const listeners = new Set<(event: McpApprovalEvent) => void>();
  const emit = (event: McpApprovalEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the ask goes on.
      }
    }
  };
  return {
    timeoutMs,
    ask(ask, { signal, timeoutMs: wait = timeoutMs } = {}) {
      // One client cannot bury the user's inbox (or hold hundreds of calls open) with asks.
      const ofClient = [...waiting.values()].filter((entry) => entry.request.actor === ask.actor).length;
      if (ofClient >= MAX_PENDING_ASKS_PER_CLIENT) return Promise.reject(new TooManyPendingAsks(ask.client));
      const now = Date.now();
      const request: McpApprovalRequest = {
        ...ask,
        id: randomUUID(),
        askedAt: new Date(now).toISOString(),
        expiresAt: new Date(now + wait).toISOString(),
      };
      return new Promise<McpApprovalOutcome>((resolve) => {
        if (signal?.aborted) {
          resolve({ kind: 'cancelled' });
          return;
        }
        const timer = setTimeout(() => settle({ kind: 'timeout', waitedMs: wait }), wait);
        const onAbort = () => settle({ kind: 'cancelled' });
        function settle(outcome: McpApprovalOutcome) {
          if (!waiting.delete(request.id)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
          emit({ type: 'settled', request, outcome });
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.set(request.id, { request, settle });
        emit({ type: 'asked', request });
      });
    },
    pending: () => [...waiting.values()].map((entry) => entry.request),
    answer(id, answer) {
      const entry = waiting.get(id);
      if (!entry) return false;
      entry.settle(
        answer.approved
          ? { kind: 'approved' }
          : { kind: 'denied', ...(answer.reason?.trim() ? { reason: answer.reason.trim() } : {}) },
      );
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      for (const entry of [...waiting.values()]) entry.settle({ kind: 'cancelled' });
    },
  };
}

/** The path the app serves its inbox on (GET lists, POST asks and waits, POST /:id answers). */
export const APPROVALS_PATH = '/api/mcp/approvals';

/**
 * The app's inbox, reached over HTTP from another process (`toolrow mcp --stdio` beside a running
 * app): POST the ask, and the answer comes back when the user gives it, or the wait ends. The
 * request is held open that long; aborting it withdraws the ask.
 */
export function remoteApprovals(options: { url: string; token: string; timeoutMs: number }): McpApprovals {
  const endpoint = `${options.url.replace(/\/$/, '')}${APPROVALS_PATH}`;
  return {
    timeoutMs: options.timeoutMs,
    async ask(ask, { signal } = {}) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...ask, timeoutMs: options.timeoutMs }),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) return { kind: 'cancelled' };
        throw new Error(
          `The Toolrow app at ${options.url} did not take the approval request: ${(error as Error).message}. Is it still running?`,
        );
      }
      const body = (await response.json().catch(() => null)) as {
        outcome?: McpApprovalOutcome;
        error?: { message?: string };
      } | null;
      if (!response.ok || !body?.outcome) {
        throw new Error(
          `The Toolrow app at ${options.url} refused the approval request (HTTP ${response.status}): ${body?.error?.message ?? 'no answer'}.`,
        );
      }
      return body.outcome;
    },
  };
}

/** Reads an ask POSTed by another process; undefined when it is not one. */
function parseAsk(body: unknown): { ask: McpApprovalAsk; timeoutMs?: number } | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const value = body as Record<string, unknown>;
  const { client, actor, tool, mode, reason, profile, tables, timeoutMs } = value;
  if (
    typeof client !== 'string' ||
    typeof actor !== 'string' ||
    !actor.startsWith('mcp:') ||
    typeof tool !== 'string' ||
    !isMcpToolName(tool) ||
    typeof mode !== 'string' ||
    !isPermissionMode(mode) ||
    typeof reason !== 'string' ||
    typeof profile !== 'string' ||
    (tables !== undefined && !(Array.isArray(tables) && tables.every((table) => typeof table === 'string')))
  ) {
    return undefined;
  }
  return {
    ask: {
      client,
      actor: actor as McpActor,
      tool,
      input: value.input ?? {},
      ...(tables ? { tables: tables as string[] } : {}),
      mode,
      reason,
      profile,
    },
    ...(typeof timeoutMs === 'number' && timeoutMs > 0 ? { timeoutMs } : {}),
  };
}

const problem = (status: number, message: string) =>
  Response.json(
    {
      error: {
        message,
        code: status === 404 ? 'not-found' : status === 429 ? 'too-many-asks' : 'bad-request',
      },
    },
    { status },
  );

/**
 * The inbox over HTTP, for the app to mount behind its own authentication (never open it
 * unauthenticated: answering is the user's click). Relative to APPROVALS_PATH:
 * - `GET`            → `{ pending: McpApprovalRequest[] }`, oldest first;
 * - `POST`           an ask from another process (remoteApprovals) → `{ outcome }` once settled;
 * - `POST /<id>`     `{ approved: boolean, reason?: string }` → `{ ok: true }`, 404 when not pending.
 */
export function createApprovalsHandler(inbox: ApprovalInbox): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === APPROVALS_PATH) {
      if (request.method === 'GET') return Response.json({ pending: inbox.pending() });
      if (request.method !== 'POST')
        return new Response(null, { status: 405, headers: { Allow: 'GET, POST' } });
      const parsed = parseAsk(await request.json().catch(() => undefined));
      if (!parsed) {
        return problem(
          400,
          'Not an approval request: send { client, actor: "mcp:<name>", tool, input, mode, reason, profile } as JSON.',
        );
      }
      try {
        const outcome = await inbox.ask(parsed.ask, {
          signal: request.signal,
          ...(parsed.timeoutMs ? { timeoutMs: parsed.timeoutMs } : {}),
        });
        return Response.json({ outcome });
      } catch (error) {
        if (error instanceof TooManyPendingAsks) return problem(429, error.message);
        throw error;
      }
    }
    const id = pathname.startsWith(`${APPROVALS_PATH}/`) ? pathname.slice(APPROVALS_PATH.length + 1) : '';
    if (!id || id.includes('/'))
      return problem(404, `No such route; the approvals are at ${APPROVALS_PATH}.`);
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST' } });
    const body = (await request.json().catch(() => undefined)) as
      | { approved?: unknown; reason?: unknown }
      | undefined;
    if (typeof body?.approved !== 'boolean') {
      return problem(400, 'Answer with { "approved": true } or { "approved": false, "reason": "…" }.');
    }
    const answered = inbox.answer(id, {
      approved: body.approved,
      ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
    });
    if (!answered) {
      return problem(
        404,
        `No pending approval ${id}: it was answered, expired, or the client gave up waiting.`,
      );
    }
    return Response.json({ ok: true });
  };
}
