// Test support, exported as '@toolrow/eval/testing': a real OpenAI-compatible chat-completions
// server on 127.0.0.1 (JSON and streaming SSE, tool calls, usage), driven by a script function, so
// `toolrow eval` runs through the real @ai-sdk/openai-compatible provider, HTTP and tool-call parsing.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exampleOf, isToolName } from '@toolrow/catalog';
import { CORPUS, type EvalRequest, type Step } from './corpus.ts';

/** A message as the OpenAI chat-completions API carries it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** What the script sees of one chat-completions request. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** The names of the tools sent (the agent's active set for this step). */
  tools: string[];
  stream: boolean;
  /** The Authorization header the provider sent, if any. */
  authorization?: string;
}

export interface ChatServerOptions {
  /** The model ids GET /v1/models lists (default: none listed, 404). */
  models?: string[];
  /** Refuse requests without `Authorization: Bearer <apiKey>` (401, as OpenAI answers). */
  apiKey?: string;
}

export type ScriptReply = { text: string } | { toolCalls: { name: string; arguments: unknown }[] };
export type ChatScript = (request: ChatRequest) => ScriptReply;

export interface ChatServer {
  /** The base URL to put in TOOLROW_MODEL: openai-compatible:<baseURL>#<model>. */
  baseURL: string;
  /** Every request received, in order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

const text = (content: ChatMessage['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** A rough, deterministic token count: four characters a token. */
const tokens = (value: unknown) => Math.max(1, Math.ceil(JSON.stringify(value).length / 4));

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function send(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Starts the server; the script answers every /v1/chat/completions request. */
export async function startChatServer(
  script: ChatScript,
  options: ChatServerOptions = {},
): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        send(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
        return;
      }
      if (req.method === 'GET' && req.url?.endsWith('/models') && options.models) {
        send(res, 200, {
          object: 'list',
          data: options.models.map((id) => ({ id, object: 'model', owned_by: 'test' })),
        });
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        send(res, 404, {
          error: {
            message: `No route ${req.method} ${req.url}; this server answers POST /v1/chat/completions.`,
          },
        });
        return;
      }
      const payload = (await body(req)) as {
        model: string;
        messages: ChatMessage[];
        tools?: { function: { name: string } }[];
        stream?: boolean;
      };
      const chat: ChatRequest = {
        model: payload.model,
        messages: payload.messages,
        tools: (payload.tools ?? []).map((tool) => tool.function.name),
        stream: payload.stream === true,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      };
      requests.push(chat);
      let reply: ScriptReply;
      try {
        reply = script(chat);
      } catch (error) {
        send(res, 500, { error: { message: `The script failed: ${(error as Error).message}` } });
        return;
      }
      const id = `chatcmpl-${randomUUID()}`;
      const created = Math.floor(Date.now() / 1000);
      const calls =
        'toolCalls' in reply
          ? reply.toolCalls.map((call) => ({
              id: `call_${randomUUID().slice(0, 8)}`,
              type: 'function' as const,
              function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
            }))
          : [];
      const content = 'text' in reply ? reply.text : null;
      const finish = calls.length > 0 ? 'tool_calls' : 'stop';
      const usage = {
        prompt_tokens: tokens({ messages: payload.messages, tools: payload.tools }),
        completion_tokens: tokens(reply),
        total_tokens: 0,
      };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      if (!chat.stream) {
        send(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model: payload.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
              finish_reason: finish,
            },
          ],
          usage,
        });
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: payload.model, choices, ...extra })}\n\n`,
        );
      event([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
      if (content) {
        // In pieces, as a real server streams: the provider must join them.
        for (const piece of content.match(/.{1,12}/gs) ?? []) {
          event([{ index: 0, delta: { content: piece }, finish_reason: null }]);
        }
      }
      calls.forEach((call, index) => {
        event([
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.function.name, arguments: '' },
                },
              ],
            },
            finish_reason: null,
          },
        ]);
        for (const piece of call.function.arguments.match(/.{1,8}/gs) ?? []) {
          event([
            {
              index: 0,
              delta: { tool_calls: [{ index, function: { arguments: piece } }] },
              finish_reason: null,
            },
          ]);
        }
      });
      event([{ index: 0, delta: {}, finish_reason: finish }]);
      event([], { usage });
      res.end('data: [DONE]\n\n');
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

// ── Scripted behaviours ──────────────────────────────────────────────────────────────────────

/** Inputs that work on the sample shop, so a scripted pick also runs. */
/**
 * Where the eval's requests want other inputs than the rows' examples (its state holds the
 * attachment and saved spec its requests name; setFilter acts on the focused tab).
 */
const INPUTS: Record<string, unknown> = {
  readAttachment: { name: 'new_customers.csv' },
  getSavedSpec: { name: 'big spenders' },
  setFilter: { filter: { column: 'status', op: 'eq', value: 'refunded' } },
  proposeSetFilter: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'refunded' } },
  openTable: { table: 'orders' },
  proposeOpenTable: { table: 'orders' },
};

/** Inputs for requests on the large sample, where the sample shop's would miss the point. */
const REQUEST_INPUTS: Record<string, Record<string, unknown>> = {
  'large-finance-tables': { listTables: { schema: 'finance' } },
  'large-wide-columns': { describeTable: { table: 'campaign_metrics' } },
  'large-loyalty-column': { findColumns: { text: 'loyalty' } },
  // SQL a correct model sends; it must run on every engine (DynamoDB: joins and grouping in DuckDB).
  'query-join-country': {
    runQuery: {
      sql: 'select c.country, sum(o.total) as revenue from orders o join customers c on c.id = o.customer_id group by c.country order by revenue desc',
    },
  },
  'query-join-top-named': {
    runQuery: {
      sql: 'select c.name, count(*) as orders from orders o join customers c on c.id = o.customer_id group by c.id, c.name order by orders desc, c.id limit 5',
    },
  },
  'query-join-category-units': {
    runQuery: {
      sql: "select p.category, sum(i.quantity) as units from order_items i join orders o on o.id = i.order_id join products p on p.id = i.product_id where o.status <> 'cancelled' group by p.category order by p.category",
    },
  },
  'large-wide-peek': {
    runQuery: { sql: 'select * from marketing.campaign_metrics', limit: 5 },
    openTable: { table: 'marketing.campaign_metrics' },
    proposeOpenTable: { table: 'marketing.campaign_metrics' },
  },
};

/** The input a scripted model sends for `tool` when answering the request `id`. */
export const scriptedInput = (id: string, tool: string): unknown =>
  REQUEST_INPUTS[id]?.[tool] ?? INPUTS[tool] ?? (isToolName(tool) ? exampleOf(tool) : {});
const inputFor = (request: EvalRequest, tool: string): unknown => scriptedInput(request.id, tool);

interface TurnSoFar {
  request: EvalRequest | undefined;
  /** Tool names called since the user's message, with whether their result was an error. */
  called: { name: string; failed: boolean; refused: boolean }[];
  searches: number;
}

function turnSoFar(chat: ChatRequest, corpus: readonly EvalRequest[]): TurnSoFar {
  const lastUser = chat.messages.map((m) => m.role).lastIndexOf('user');
  const said = text(chat.messages[lastUser]?.content);
  const names = new Map<string, string>();
  const called: TurnSoFar['called'] = [];
  for (const message of chat.messages.slice(lastUser + 1)) {
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role === 'tool' && message.tool_call_id) {
      const result = text(message.content);
      called.push({
        name: names.get(message.tool_call_id) ?? '?',
        failed: /not in active set|error|invalid/i.test(result),
        refused: /not in active set/.test(result),
      });
    }
  }
  return {
    request: corpus.find((request) => request.text === said),
    called,
    searches: called.filter((call) => call.name === 'searchTools').length,
  };
}

const options = (step: Step): readonly string[] => (typeof step === 'string' ? [step] : step);

/**
 * A model that knows what each corpus request needs but can only use the tools it was sent: it
 * calls the next expected tool when one is in its list. `search` decides what it does otherwise.
 */
function oracle(corpus: readonly EvalRequest[], search: boolean): ChatScript {
  return (chat) => {
    const { request, called, searches } = turnSoFar(chat, corpus);
    if (!request) return { text: 'I do not know how to help with that.' };
    let next = 0;
    // A refused call did not happen; a failed one did (its input was wrong), and is not retried.
    for (const call of called) {
      const step = request.expect[next];
      if (step && !call.refused && options(step).includes(call.name)) next++;
    }
    const step = request.expect[next];
    if (!step) return { text: 'Done.' };
    const available = options(step).find(
      (name) =>
        chat.tools.includes(name) &&
        (search || name !== 'searchTools') &&
        !called.some((c) => c.name === name && c.failed && !c.refused),
    );
    if (available) {
      const input = available === 'searchTools' ? { query: request.text } : inputFor(request, available);
      return { toolCalls: [{ name: available, arguments: input }] };
    }
    if (search && searches === 0 && chat.tools.includes('searchTools')) {
      // The user's own words: exactly what the visibility audit says should find the tool.
      return { toolCalls: [{ name: 'searchTools', arguments: { query: request.text } }] };
    }
    return { text: 'I cannot do that with the tools I have.' };
  };
}

/**
 * Calls the tool it needs by name even when it was not sent; after the refusal, searches for that
 * name as the refusal says to, then calls it. Exercises refusals and recovery.
 */
export function guessingModel(corpus: readonly EvalRequest[] = CORPUS): ChatScript {
  const searching = searchingModel(corpus);
  return (chat) => {
    const { request, called, searches } = turnSoFar(chat, corpus);
    const wanted = request?.expect
      .map(options)
      .find((step) => !step.some((name) => called.some((c) => c.name === name && !c.failed)));
    const name = wanted?.[0];
    if (!request || !name || chat.tools.includes(name)) return searching(chat);
    const refused = called.some((call) => call.name === name && call.failed);
    if (!refused) return { toolCalls: [{ name, arguments: inputFor(request, name) }] };
    if (searches === 0) return { toolCalls: [{ name: 'searchTools', arguments: { query: name } }] };
    return { text: 'I cannot do that with the tools I have.' };
  };
}

/** The floor: never calls searchTools, so a discoverable tool is out of its reach. */
export const floorModel = (corpus: readonly EvalRequest[] = CORPUS): ChatScript => oracle(corpus, false);

/** Searches once, with the user's words, when the tool it needs is not in its list. */
export const searchingModel = (corpus: readonly EvalRequest[] = CORPUS): ChatScript => oracle(corpus, true);
