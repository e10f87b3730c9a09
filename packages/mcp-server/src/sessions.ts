// Sessions for 2025-era clients over Streamable HTTP. A stateless request has no stream for a
// server-to-client request to travel on, so a 2025-11-25 client could never be asked (elicitation)
// mid-call. A client that opens with `initialize` gets an Mcp-Session-Id and one server of its own
// for the session's life: its capabilities are known, its POSTs stream (SSE), its answers to the
// server's questions reach the call that asked, and its cancellations reach the call they name.
// Its streams are resumable: a client whose stream dropped mid-call reconnects and gets the rest.
//
// A session belongs to the bearer token and the principal that opened it: any other token, or the
// same token after its scope changed, is told the session does not exist (404, so the client starts
// a new one) and learns nothing of it. Sessions end on DELETE, after an idle time, or when a token
// opens more than its share (the least recently used goes first).
import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type EventStore,
  type JSONRPCMessage,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { McpPrincipal } from './tokens.ts';

/** A session unused this long ends (its client gets 404 and starts a new one). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** The sessions one bearer token may hold at once; opening another ends its least recently used. */
export const DEFAULT_SESSIONS_PER_TOKEN = 16;
/** The sessions the endpoint holds at once, over all tokens. */
export const DEFAULT_MAX_SESSIONS = 256;

export interface McpSessionLimits {
  idleMs?: number;
  perToken?: number;
  max?: number;
  /** The clock idleness is measured on (tests move it instead of waiting). */
  now?: () => number;
}

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  token: string;
  principal: string;
  lastUsed: number;
  /** POSTs being served (a streaming call is in use until its stream ends): the session is busy. */
  calls: number;
  /** GET streams open: the client is there, listening, though not busy. */
  listening: number;
}

export interface McpSessions {
  /** Opens a session for an `initialize` POST and answers it (the answer carries the session id). */
  open(
    request: Request,
    context: { auth: AuthInfo; principal: McpPrincipal; body: unknown; server: () => Promise<Server> },
  ): Promise<Response>;
  /** Serves a request that names a session; 404 when the session is unknown, ended or not the caller's. */
  serve(
    request: Request,
    sessionId: string,
    context: { auth: AuthInfo; principal: McpPrincipal; body?: unknown },
  ): Promise<Response>;
  /** How many sessions are open (for tests and the bench). */
  readonly size: number;
  close(): Promise<void>;
}

/** Everything that makes a principal what it is: a change in any of it is a new session. */
const principalKey = (principal: McpPrincipal) =>
  JSON.stringify([
    principal.name,
    principal.scope,
    principal.profile ?? null,
    principal.askViaClient ?? false,
    principal.canStepUp ?? false,
  ]);

/** Events a session keeps for a client that reconnects (Last-Event-ID); older ones are let go. */
export const SESSION_EVENTS_KEPT = 1000;
/** How soon a client whose stream dropped should reconnect, in ms (the SSE retry field). */
export const SESSION_RETRY_MS = 1000;

/**
 * One session's recent stream events, so a client whose stream dropped mid-call reconnects with
 * Last-Event-ID and gets what it missed, the call's result included (SEP-1699). Bounded: a client
 * away for more than SESSION_EVENTS_KEPT events calls again.
 */
export function createSessionEventStore(kept = SESSION_EVENTS_KEPT): EventStore {
  const events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  let sequence = 0;
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}_${++sequence}`;
      events.set(eventId, { streamId, message });
      if (events.size > kept) events.delete(events.keys().next().value as string);
      return eventId;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (!last) return '';
      let after = false;
      for (const [eventId, event] of events) {
        if (after && event.streamId === last.streamId) await send(eventId, event.message);
        if (eventId === lastEventId) after = true;
      }
      return last.streamId;
    },
  };
}

/** The SDK transport's own answer for an unknown session, so clients treat ours alike. */
function sessionNotFound(): Response {
  return Response.json(
    {
      jsonrpc: '2.0',
      error: {
        code: -32001,
        message:
          'Session not found: it ended (closed, idle too long, or replaced by a newer one). Send initialize again without an Mcp-Session-Id to start a new session.',
      },
      id: null,
    },
    { status: 404 },
  );
}

function tooManySessions(perToken: number): Response {
  return Response.json(
    {
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Too many MCP sessions are busy at once (at most ${perToken} per token): end one (DELETE with its Mcp-Session-Id) or wait for a call to finish, then initialize again.`,
      },
      id: null,
    },
    { status: 429, headers: { 'Retry-After': '5' } },
  );
}

export function createMcpSessions(limits: McpSessionLimits = {}): McpSessions {
  const idleMs = limits.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const perToken = limits.perToken ?? DEFAULT_SESSIONS_PER_TOKEN;
  const max = limits.max ?? DEFAULT_MAX_SESSIONS;
  const clock = limits.now ?? Date.now;
  const sessions = new Map<string, Session>();

  const end = (session: Session) => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    // Closing the server closes its transport: open streams end, calls in flight are aborted.
    void session.server.close().catch(() => {});
  };

  const sweep = (now: number) => {
    for (const session of sessions.values()) {
      if (session.calls === 0 && session.listening === 0 && now - session.lastUsed > idleMs) end(session);
    }
  };
  /** Ends the least recently used of `among` that serves no request; false when all are busy. */
  const endOldest = (among: Iterable<Session>): boolean => {
    let oldest: Session | undefined;
    for (const session of among) {
      if (session.calls > 0) continue;
      if (!oldest || session.lastUsed < oldest.lastUsed) oldest = session;
    }
    if (oldest) end(oldest);
    return oldest !== undefined;
  };
  /** Room for one more session of `token`; false when every session in the way is busy. */
  const makeRoom = (token: string): boolean => {
    const own = [...sessions.values()].filter((session) => session.token === token);
    if (own.length >= perToken && !endOldest(own)) return false;
    if (sessions.size >= max && !endOldest(sessions.values())) return false;
    return true;
  };

  /** Serves one request on the session, counting it open until its response body ends. */
  const handle = async (session: Session, request: Request, options: { auth: AuthInfo; body?: unknown }) => {
    const counter = request.method === 'GET' ? 'listening' : 'calls';
    session.lastUsed = clock();
    session[counter]++;
    let response: Response;
    try {
      response = await session.transport.handleRequest(request, {
        authInfo: options.auth,
        ...(options.body !== undefined ? { parsedBody: options.body } : {}),
      });
    } catch (error) {
      session[counter]--;
      throw error;
    }
    return untilBodyEnds(response, () => {
      session[counter]--;
      session.lastUsed = clock();
    });
  };

  return {
    async open(request, { auth, principal, body, server: createServer }) {
      const now = clock();
      sweep(now);
      if (!makeRoom(auth.token)) return tooManySessions(perToken);
      let session: Session | undefined;
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: createSessionEventStore(),
        retryInterval: SESSION_RETRY_MS,
        onsessioninitialized: (id) => {
          if (!session) return;
          session.id = id;
          sessions.set(id, session);
        },
        onsessionclosed: (id) => {
          const closed = sessions.get(id);
          if (closed) end(closed);
        },
      });
      const server = await createServer();
      session = {
        id: '',
        transport,
        server,
        token: auth.token,
        principal: principalKey(principal),
        lastUsed: now,
        calls: 0,
        listening: 0,
      };
      await server.connect(transport);
      const response = await handle(session, request, { auth, body });
      // An initialize the transport refused opened nothing: let the server go.
      if (!session.id) await server.close().catch(() => {});
      return response;
    },
    async serve(request, sessionId, { auth, principal, body }) {
      sweep(clock());
      const session = sessions.get(sessionId);
      if (!session || session.token !== auth.token) return sessionNotFound();
      if (session.principal !== principalKey(principal)) {
        // The token now stands for something else (its connection's exposure changed): the
        // session's server holds the old scope, so it ends and the client starts afresh.
        end(session);
        return sessionNotFound();
      }
      return handle(session, request, { auth, ...(body !== undefined ? { body } : {}) });
    },
    get size() {
      return sessions.size;
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((session) => session.server.close().catch(() => {})));
    },
  };
}

/** The response, with `done` called once when its body has been read to the end or cancelled. */
function untilBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      done();
    }
  };
  const reader = response.body.getReader();
  const relayed = new ReadableStream({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          once();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        once();
        controller.error(error);
      }
    },
    async cancel(reason) {
      once();
      await reader.cancel(reason);
    },
  });
  return new Response(relayed, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
