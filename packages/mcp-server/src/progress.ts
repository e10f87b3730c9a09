// One progress line per request. The spec says progress MUST increase with each notification, and
// several parts of one call report it (the approval wait's heartbeat, the tool's heartbeat, an
// export's rows), each with a count of its own. They all go through here: a value at or below the
// last one sent is raised just above it (heartbeats) or held back (rows not yet past it).
import type { ServerContext } from '@modelcontextprotocol/server';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestProgress {
  /** Still working: the next value just above the last (a hundredth of a step once a total is known). */
  beat(message: string): void;
  /** A measured amount (rows written): sent when it is above the last value, else held back. */
  report(update: ProgressUpdate): void;
}

const perRequest = new WeakMap<object, RequestProgress>();

/** The request's progress line, or undefined when the client sent no progressToken. */
export function progressOf(ctx: ServerContext): RequestProgress | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  const known = perRequest.get(ctx.mcpReq);
  if (known) return known;
  let last = 0;
  let total: number | undefined;
  const send = (update: ProgressUpdate) => {
    last = update.progress;
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, ...update } })
      .catch(() => {});
  };
  const line: RequestProgress = {
    beat(message) {
      // Below a known total a beat closes a hundredth of the gap, so it never claims more than all.
      if (total !== undefined && last >= total) total = undefined;
      const next = total === undefined ? Math.floor(last) + 1 : last + (total - last) / 100;
      send({ progress: next, ...(total !== undefined ? { total } : {}), message });
    },
    report(update) {
      if (update.total !== undefined && update.total >= update.progress) total = update.total;
      else if (total !== undefined && update.progress > total) total = undefined;
      if (update.progress <= last) return;
      send({ ...update, ...(total !== undefined && update.total === undefined ? { total } : {}) });
    },
  };
  perRequest.set(ctx.mcpReq, line);
  return line;
}
