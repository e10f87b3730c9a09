// What a POST to a stateless endpoint carries, looked at before any server sees it: a
// cancellation goes to the call it names (that call runs in another request's server), and an
// out-of-scope tools/call is audited and refused. The bearer endpoint (http.ts) and the app's
// stdio bridge (bridge.ts) screen alike; only how they answer a refusal differs.
import type { McpBackend } from './backend.ts';
import type { InFlightCalls } from './cancellations.ts';
import { type McpRefusal, refusalFor } from './scopes.ts';
import { auditRefusal } from './server.ts';
import { capOf, type McpPrincipal } from './tokens.ts';

interface JsonRpcRequestLike {
  id?: unknown;
  method: string;
  params?: { name?: unknown; arguments?: unknown; requestId?: unknown; reason?: unknown };
}

function jsonRpcMessages(body: unknown): JsonRpcRequestLike[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter(
    (message): message is JsonRpcRequestLike =>
      message !== null &&
      typeof message === 'object' &&
      typeof (message as { method?: unknown }).method === 'string',
  );
}

export type ScopeRefusal = Extract<McpRefusal, { kind: 'scope' }>;

/**
 * Routes the body's cancellations (from `caller`, to `caller`'s calls only) and returns the first
 * tools/call its principal may not make, with its JSON-RPC id. Excluded and unknown names are
 * audited and let through: the server has no such tool and says so.
 */
export async function screenPost(
  body: unknown,
  context: {
    /** Stateless calls in flight; without it (a session), cancellations are left to the server. */
    calls?: InFlightCalls;
    caller: string;
    principal: McpPrincipal;
    backend: McpBackend;
    report: (error: unknown) => void;
  },
): Promise<{ id: unknown; refusal: ScopeRefusal } | undefined> {
  for (const message of jsonRpcMessages(body)) {
    if (message.method === 'notifications/cancelled') {
      context.calls?.cancel(context.caller, message.params?.requestId, message.params?.reason);
      continue;
    }
    if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') continue;
    const refusal = refusalFor(
      message.params.name,
      context.principal.scope,
      context.backend.engine,
      capOf(context.principal, context.backend.profile),
    );
    if (!refusal) continue;
    await auditRefusal(context.backend, refusal, message.params.arguments ?? {}, context.principal).catch(
      context.report,
    );
    if (refusal.kind === 'scope') return { id: message.id, refusal };
  }
  return undefined;
}
