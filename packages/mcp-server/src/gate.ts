// The permission ladder over MCP: a gated call inside the client's scope follows the profile's
// mode exactly as in chat (the same pure `ladder`, the same grants, the same words). Where chat
// pauses the turn for the user's click, an MCP call waits: in the app's approval inbox (with
// progress notifications meanwhile), or, for a client the user trusted, through the client's own
// user via MCP elicitation. Every decision is audited under the client's name (mcp:<name>).
import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type ElicitResult,
  type InputRequiredResult,
  inputRequired,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  askReason,
  autoReason,
  coveredByGrants,
  inputDigest,
  ladder,
  PERMISSION_MODE_LABELS,
  type PermissionMode,
} from '@toolrow/agent';
import { proposeVariantOf, TOOL_ACCESS } from '@toolrow/catalog';
import type { McpApprovalOutcome, McpApprovals } from './approvals.ts';
import type { McpActor, McpBackend } from './backend.ts';
import type { McpToolName } from './generated/mcp-scopes.ts';
import { progressOf, type RequestProgress } from './progress.ts';
import { refusalFor } from './scopes.ts';
import type { McpPrincipal } from './tokens.ts';

/** How often a waiting call tells the client it is still waiting (when it sent a progressToken). */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * The longest a call without a progressToken waits for the user: the MCP SDK's clients give up
 * on a request after 60 s unless progress resets their clock, so past this the call says so
 * rather than vanish in the client's timeout.
 */
export const UNPROGRESSED_WAIT_MS = 50_000;

export interface McpGateOptions {
  /** Where Manual (and Auto's asks) wait for the user; without one, nobody can be asked. */
  approvals?: McpApprovals;
  /** Progress notifications while waiting, every this many ms (default 10 s). */
  progressIntervalMs?: number;
  /** How long a call that sent no progressToken waits (default UNPROGRESSED_WAIT_MS). */
  unprogressedWaitMs?: number;
}

/** The elicitation's state, sealed (HMAC) into requestState: which call the answer belongs to. */
interface ElicitState {
  client: string;
  tool: string;
  digest: string;
  nonce: string;
}

// One key per process: the per-request HTTP servers and a stdio connection live in this process,
// and an answer is only good for the server process that asked.
const codec = createRequestStateCodec<ElicitState>({ key: randomBytes(32), ttlSeconds: 15 * 60 });
/** The verify hook the server options take, so ctx.mcpReq.requestState() is the checked payload. */
export const verifyElicitState = codec.verify;
// An answer runs its call once: a nonce seen is never good again (kept for the state's lifetime).
const usedNonces = new Map<string, number>();
function spendNonce(nonce: string): boolean {
  const now = Date.now();
  for (const [seen, at] of usedNonces) if (now - at > 15 * 60_000) usedNonces.delete(seen);
  if (usedNonces.has(nonce)) return false;
  usedNonces.set(nonce, now);
  return true;
}

const ELICIT_KEY = 'toolrow_approval';

export type GateVerdict =
  | { kind: 'run' }
  | { kind: 'refuse'; result: CallToolResult }
  | { kind: 'elicit'; result: InputRequiredResult };

/** The name a client gave itself: on the request (2026 clients, and stdio clients through the app). */
function declaredNameOf(ctx: ServerContext): string | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === 'string' && info.name.trim() ? info.name.trim().slice(0, 80) : undefined;
}

/** How the inbox names a client: as it named itself, beside the name it is known by here. */
function clientLabel(principal: string, declared: string | undefined): string {
  return declared && declared !== principal ? `${declared} (${principal})` : principal;
}

function refuse(text: string): GateVerdict {
  return { kind: 'refuse', result: { content: [{ type: 'text', text }], isError: true } };
}

/** Whether the client declared form elicitation: per request (2026-07-28) or at initialize (2025). */
export function declaresElicitation(
  ctx: ServerContext,
  initialized: ClientCapabilities | undefined,
): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? initialized;
  const elicitation = declared?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  // `elicitation: {}` is form mode (the 2025-06-18 shape); newer clients name the modes.
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

function formatWait(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

function inputSummary(input: unknown): string {
  const text = JSON.stringify(input ?? {});
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** Who the user is told about the refusal and what the caller can do next, per outcome. */
function deniedText(
  name: McpToolName,
  principal: McpPrincipal,
  reason: string | undefined,
  by: string,
): string {
  const said = reason?.trim() ? `${by} said no: ${reason.trim()}` : `${by} said no.`;
  const propose = proposeVariantOf(name);
  const twin =
    propose && refusalFor(propose, principal.scope) === undefined
      ? ` If it still helps, call ${propose} instead: it offers the user a button in the Toolrow app and changes nothing until they click it.`
      : '';
  return `${said} '${name}' did not run.${twin}`;
}

function timeoutText(name: McpToolName, mode: PermissionMode, waitedMs: number): string {
  return (
    `Nobody answered within ${formatWait(waitedMs)}, so '${name}' did not run: ` +
    `${PERMISSION_MODE_LABELS[mode]} mode asks the user first, and the ask has expired. ` +
    'Tell the user to open the Toolrow app (the Approvals inbox) and call it again; they can approve it there. ' +
    'The wait is set with TOOLROW_MCP_APPROVAL_TIMEOUT.'
  );
}

function nobodyText(name: McpToolName, mode: PermissionMode, reason: string): string {
  return (
    `'${name}' did not run: ${reason} There is no Toolrow app running to ask the user in. ` +
    `Ask the user to start it (npx toolrow serve) and call again, or to switch the profile to a mode that runs it without asking (${PERMISSION_MODE_LABELS[mode]} now).`
  );
}

/**
 * Decides one gated call: run now, refuse (with the text the client's model reads), or ask the
 * client's user (an input-required result). Audits every decision under mcp:<client>.
 */
export async function gateCall(params: {
  backend: McpBackend;
  principal: McpPrincipal;
  actor: McpActor;
  name: McpToolName;
  input: unknown;
  ctx: ServerContext;
  /** The client capabilities from initialize (2025 era), if the server saw one. */
  initializedCapabilities: ClientCapabilities | undefined;
  /** The name the client declared in initialize, if the server saw one (shown beside the principal's). */
  declaredName?: string | undefined;
  options: McpGateOptions;
  /**
   * A task's call (tasks.ts): its request is already answered, so the client cannot be asked on
   * it (the inbox asks instead), and the wait is told in the task's status.
   */
  task?: { progress: RequestProgress };
}): Promise<GateVerdict> {
  const { backend, principal, actor, name, input, ctx, options } = params;
  const access = TOOL_ACCESS[name as keyof typeof TOOL_ACCESS];
  const [permissions, tables] = await Promise.all([
    backend.permissions(actor),
    backend.tablesOf(name, input),
  ]);
  const mode = permissions.mode;
  const audit = (decision: 'auto' | 'asked' | 'approved' | 'denied', detail: string) =>
    backend.audit({
      tool: name,
      input,
      decision,
      decidedBy: actor,
      ...(principal.person ? { person: principal.person } : {}),
      detail,
      ...(tables ? { tables } : {}),
    });
  const approved = async (detail: string): Promise<GateVerdict> => {
    await audit('approved', detail);
    // Auto mode remembers a "yes" to a read, per table, so the next read of it runs (as in chat).
    if (mode === 'auto' && access === 'read') {
      for (const table of tables ?? []) await backend.rememberGrant({ tool: name, table }, actor);
    }
    return { kind: 'run' };
  };

  // An answer from the client's user, on the call's re-entry after an elicitation.
  const state = ctx.mcpReq.requestState<ElicitState>();
  const answer = ctx.mcpReq.inputResponses?.[ELICIT_KEY] as ElicitResult | undefined;
  if (
    state &&
    typeof state === 'object' &&
    answer &&
    state.client === principal.name &&
    state.tool === name &&
    state.digest === inputDigest(input) &&
    spendNonce(state.nonce)
  ) {
    const content = answer.content as Record<string, unknown> | undefined;
    if (answer.action === 'accept' && content?.approve !== false) {
      return approved(`approved by the client's user (MCP elicitation to ${principal.name})`);
    }
    const how =
      answer.action === 'accept' ? 'declined' : answer.action === 'decline' ? 'declined' : 'cancelled';
    await audit('denied', `${how} by the client's user (MCP elicitation to ${principal.name})`);
    return refuse(
      answer.action === 'cancel'
        ? `The user dismissed the approval request without answering, so '${name}' did not run. Call it again if they still want it.`
        : deniedText(name, principal, undefined, 'The user'),
    );
  }

  const outcome = ladder(access, mode, coveredByGrants(permissions.grants, tables));
  if (outcome === 'run') {
    await audit('auto', `${autoReason(access, mode, tables)} Scope ${principal.scope}.`);
    return { kind: 'run' };
  }
  const reason = askReason(access, mode);

  if (principal.askViaClient && !params.task && declaresElicitation(ctx, params.initializedCapabilities)) {
    await audit('asked', `${reason} Asking the client's user (MCP elicitation).`);
    const requestState = await codec.mint(
      {
        client: principal.name,
        tool: name,
        digest: inputDigest(input),
        nonce: randomBytes(12).toString('hex'),
      },
      ctx,
    );
    return {
      kind: 'elicit',
      result: inputRequired({
        inputRequests: {
          [ELICIT_KEY]: inputRequired.elicit({
            message: `Toolrow (${PERMISSION_MODE_LABELS[mode]} mode): allow ${principal.name} to run ${name} with ${inputSummary(input)}? ${reason}`,
            requestedSchema: {
              type: 'object',
              properties: {
                approve: {
                  type: 'boolean',
                  title: `Run ${name}`,
                  description: 'Leave on and accept to run it; decline to refuse.',
                  default: true,
                },
              },
            },
          }),
        },
        requestState,
      }),
    };
  }

  const approvals = options.approvals;
  if (!approvals) {
    await audit('denied', `${reason} Nobody to ask: no Toolrow app is running.`);
    return refuse(nobodyText(name, mode, reason));
  }

  await audit('asked', `${reason} Waiting in the Toolrow app's approval inbox.`);
  const progress = params.task ? params.task.progress : progressOf(ctx);
  // Without progress the client's own clock runs out first: wait no longer than it will.
  const capped = progress
    ? undefined
    : Math.min(approvals.timeoutMs, options.unprogressedWaitMs ?? UNPROGRESSED_WAIT_MS);
  const waitMs = capped ?? approvals.timeoutMs;
  const waiting = `Waiting for the user to approve ${name} in the Toolrow app (${PERMISSION_MODE_LABELS[mode]} mode; up to ${formatWait(waitMs)}).`;
  const beat = () => progress?.beat(waiting);
  beat();
  const timer = setInterval(beat, options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
  let settled: McpApprovalOutcome;
  try {
    settled = await approvals.ask(
      {
        // The person reads the name the client gave itself ("Claude Desktop"), beside the one it
        // is known by here (a token's name, or "stdio").
        client: clientLabel(principal.name, declaredNameOf(ctx) ?? params.declaredName),
        actor,
        tool: name,
        input,
        ...(tables ? { tables } : {}),
        mode,
        reason,
        profile: backend.profile,
      },
      { signal: ctx.mcpReq.signal, ...(capped !== undefined ? { timeoutMs: capped } : {}) },
    );
  } catch (error) {
    await audit('denied', `${reason} The approval inbox failed: ${(error as Error).message}`);
    return refuse(`'${name}' did not run: the user could not be asked (${(error as Error).message}).`);
  } finally {
    clearInterval(timer);
  }
  switch (settled.kind) {
    case 'approved':
      return approved('approved by the user in the Toolrow app');
    case 'denied':
      await audit(
        'denied',
        `denied by the user in the Toolrow app${settled.reason ? `: ${settled.reason}` : ''}`,
      );
      return refuse(deniedText(name, principal, settled.reason, 'The user'));
    case 'timeout':
      await audit('denied', `no answer within ${formatWait(settled.waitedMs)}; timed out`);
      return refuse(
        capped !== undefined && capped < approvals.timeoutMs
          ? `${timeoutText(name, mode, settled.waitedMs)} This client sent no progressToken, so it would give up on the call at its own request timeout (60 s in the MCP SDK): Toolrow stopped waiting first. Ask again when the user is at the app, or call with a progressToken (the SDK: onprogress with resetTimeoutOnProgress: true) to wait up to ${formatWait(approvals.timeoutMs)}.`
          : timeoutText(name, mode, settled.waitedMs),
      );
    case 'cancelled':
      await audit('denied', 'the client cancelled the call before the user answered');
      return refuse(`'${name}' did not run: the call was cancelled before the user answered.`);
  }
}
