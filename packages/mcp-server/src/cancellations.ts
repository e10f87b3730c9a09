// Stateless HTTP serves each POST with a server of its own, so a `notifications/cancelled` (a POST
// of its own) never meets the call it cancels. The HTTP handler keeps the calls in flight by the
// bearer token that made them and their JSON-RPC id, and a cancellation aborts the one it names,
// from the same token only: one client can never stop another's call.
import type { ServerContext } from '@modelcontextprotocol/server';

export interface InFlightCalls {
  /**
   * The call's context with a signal that aborts when the call's own does, or when a cancellation
   * from `token` names its id. Call `done` when the call ends.
   */
  track(token: string, ctx: ServerContext): { ctx: ServerContext; done(): void };
  /** Aborts the call `token` made with this id; false when there is none in flight. */
  cancel(token: string, requestId: unknown, reason?: unknown): boolean;
}

const keyOf = (token: string, requestId: unknown) => `${token}\u0000${JSON.stringify(requestId)}`;

export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, AbortController>();
  return {
    track(token, ctx) {
      const key = keyOf(token, ctx.mcpReq.id);
      const controller = new AbortController();
      const own = ctx.mcpReq.signal;
      const follow = () => controller.abort(own.reason);
      if (own.aborted) follow();
      else own.addEventListener('abort', follow, { once: true });
      calls.set(key, controller);
      // The same request, seen through a signal that also hears cancellations: everything else
      // (notify, log, elicitation, the progress line) is the request's own.
      const mcpReq = Object.create(ctx.mcpReq, { signal: { value: controller.signal } });
      return {
        ctx: { ...ctx, mcpReq } as ServerContext,
        done() {
          own.removeEventListener('abort', follow);
          if (calls.get(key) === controller) calls.delete(key);
        },
      };
    },
    cancel(token, requestId, reason) {
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
      const controller = calls.get(keyOf(token, requestId));
      if (!controller) return false;
      controller.abort(new Error(typeof reason === 'string' ? reason : 'the client cancelled the call'));
      return true;
    },
  };
}
