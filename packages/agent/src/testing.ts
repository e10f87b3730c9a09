// Test helpers, exported as '@toolrow/agent/testing': a scripted language model (the only thing
// Toolrow's tests script), a recording backend with permissive schemas, and an in-memory gate store.
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { TOOL_NAMES } from '@toolrow/catalog';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import type { AuditEntry } from './audit.ts';
import type { Grant, PermissionMode } from './ladder.ts';
import type { ExecutableToolName, GateStore, ToolBackend, ToolCallContext } from './ports.ts';

/** One thing the scripted model says in a step: a tool call or some text. */
export type ScriptedPart = { tool: string; input?: unknown; id?: string } | { text: string };

/** A step: fixed parts, or parts computed from what the SDK sent (its prompt and tools). */
export type ScriptedStep =
  | readonly ScriptedPart[]
  | ((call: LanguageModelV4CallOptions) => readonly ScriptedPart[]);

/** Usage every scripted step reports, so token accounting can be checked. */
export const SCRIPTED_STEP_USAGE = { input: 100, output: 10, cacheRead: 20 } as const;

let callCounter = 0;

function content(parts: readonly ScriptedPart[]): LanguageModelV4Content[] {
  return parts.map((part) =>
    'tool' in part
      ? {
          type: 'tool-call' as const,
          toolCallId: part.id ?? `call-${++callCounter}`,
          toolName: part.tool,
          input: JSON.stringify(part.input ?? {}),
        }
      : { type: 'text' as const, text: part.text },
  );
}

function usage() {
  return {
    inputTokens: {
      total: SCRIPTED_STEP_USAGE.input,
      noCache: SCRIPTED_STEP_USAGE.input - SCRIPTED_STEP_USAGE.cacheRead,
      cacheRead: SCRIPTED_STEP_USAGE.cacheRead,
      cacheWrite: 0,
    },
    outputTokens: { total: SCRIPTED_STEP_USAGE.output, text: SCRIPTED_STEP_USAGE.output, reasoning: 0 },
  };
}

/**
 * A MockLanguageModelV4 that plays a script, one step per model call, through doGenerate
 * (generateText) and doStream (streamText) alike. Running past the script is an error.
 */
export function scriptedModel(steps: readonly ScriptedStep[]): MockLanguageModelV4 {
  let next = 0;
  const take = (call: LanguageModelV4CallOptions): LanguageModelV4Content[] => {
    const step = steps[next++];
    if (!step)
      throw new Error(`The scripted model has ${steps.length} steps and was called for step ${next}.`);
    return content(typeof step === 'function' ? step(call) : step);
  };
  const finishReason = (parts: LanguageModelV4Content[]) => ({
    unified: parts.some((part) => part.type === 'tool-call') ? ('tool-calls' as const) : ('stop' as const),
    raw: undefined,
  });
  return new MockLanguageModelV4({
    doGenerate: async (call) => {
      const parts = take(call);
      return { content: parts, finishReason: finishReason(parts), usage: usage(), warnings: [] };
    },
    doStream: async (call) => {
      const parts = take(call);
      const chunks: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      parts.forEach((part, index) => {
        if (part.type === 'text') {
          chunks.push({ type: 'text-start', id: `t${index}` });
          chunks.push({ type: 'text-delta', id: `t${index}`, delta: part.text });
          chunks.push({ type: 'text-end', id: `t${index}` });
        } else if (part.type === 'tool-call') {
          chunks.push(part);
        }
      });
      chunks.push({ type: 'finish', finishReason: finishReason(parts), usage: usage() });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
      };
    },
  });
}

/** A call the recording backend received. */
export interface RecordedCall {
  name: ExecutableToolName;
  input: unknown;
  context: ToolCallContext;
}

/**
 * A backend for tests that run before (or without) @toolrow/tools: every tool accepts any object
 * and returns `{ ok: true, tool }` unless `results` scripts an output. Every call is recorded.
 */
export function recordingBackend(
  options: {
    results?: Partial<Record<ExecutableToolName, (input: unknown) => unknown>>;
    tablesOf?: ToolBackend['tablesOf'];
  } = {},
): ToolBackend & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const schema = z.looseObject({});
  return {
    calls,
    inputSchema: () => schema,
    async execute(name, input, context) {
      calls.push({ name, input, context });
      const result = options.results?.[name];
      return result ? result(input) : { ok: true, tool: name };
    },
    tablesOf:
      options.tablesOf ??
      ((_name, input) => {
        const table = (input as { table?: unknown } | undefined)?.table;
        return typeof table === 'string' ? [table] : undefined;
      }),
  };
}

/** An in-memory gate store: one profile's mode and grants, and the audit log as an array. */
export function memoryGateStore(
  mode: PermissionMode = 'manual',
  grants: Grant[] = [],
): GateStore & { audit: AuditEntry[]; grants: Grant[]; mode: PermissionMode } {
  const store = {
    audit: [] as AuditEntry[],
    grants,
    mode,
    async permissions() {
      return { mode: store.mode, grants: [...store.grants] };
    },
    async rememberGrant(_profileId: string, grant: Grant) {
      store.grants.push(grant);
    },
    async appendAudit(entry: AuditEntry) {
      store.audit.push(entry);
    },
  };
  return store;
}

/** Every tool name, for tests that loop over the catalog. */
export const ALL_TOOLS = TOOL_NAMES;

/** The chunks of a UI message stream Response (server-sent events, as streamTurn returns it). */
export async function readUIChunks(response: Response): Promise<UIMessageChunk[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((event) => event.replace(/^data: /, '').trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as UIMessageChunk);
}

/** The assistant message a list of UI chunks builds, as useChat would hold it. */
export async function assembleUIMessage<M extends UIMessage = UIMessage>(
  chunks: readonly UIMessageChunk[],
): Promise<M> {
  let last: M | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream<M>({ stream })) last = message;
  if (!last) throw new Error('The UI message stream held no message.');
  return structuredClone(last);
}

/** A request the fake OpenAI-compatible server received (the parsed JSON body). */
export interface ChatCompletionRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
}

/** Usage every fake completion reports, cached prompt tokens included. */
export const FAKE_COMPLETION_USAGE = { prompt: 120, completion: 7, cached: 100 } as const;

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions API (JSON and SSE), playing
 * a script: for testing the real provider path (`TOOLROW_MODEL=openai-compatible:<url>#<model>`)
 * over a real socket, in-process or from a child process.
 */
export async function fakeOpenAIServer(
  steps: readonly (readonly ScriptedPart[] | ((request: ChatCompletionRequest) => readonly ScriptedPart[]))[],
): Promise<{ url: string; requests: ChatCompletionRequest[]; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const requests: ChatCompletionRequest[] = [];
  let next = 0;
  const usage = {
    prompt_tokens: FAKE_COMPLETION_USAGE.prompt,
    completion_tokens: FAKE_COMPLETION_USAGE.completion,
    total_tokens: FAKE_COMPLETION_USAGE.prompt + FAKE_COMPLETION_USAGE.completion,
    prompt_tokens_details: { cached_tokens: FAKE_COMPLETION_USAGE.cached },
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as ChatCompletionRequest;
      requests.push(parsed);
      const step = steps[next++];
      if (!step) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `The fake server has ${steps.length} steps.` } }));
        return;
      }
      const parts = typeof step === 'function' ? step(parsed) : step;
      const text = parts.flatMap((part) => ('text' in part ? [part.text] : [])).join('');
      const toolCalls = parts.flatMap((part, index) =>
        'tool' in part
          ? [
              {
                id: part.id ?? `call_${next}_${index}`,
                type: 'function',
                function: { name: part.tool, arguments: JSON.stringify(part.input ?? {}) },
              },
            ]
          : [],
      );
      const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
      const base = { id: `chatcmpl-${next}`, created: 1_700_000_000, model: parsed.model };
      if (!parsed.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: text || null,
                  ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
                },
                finish_reason: finish,
              },
            ],
            usage,
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta: unknown, finishReason: string | null = null) =>
        send({
          ...base,
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta, finish_reason: finishReason }],
        });
      chunk({ role: 'assistant', content: '' });
      if (text) chunk({ content: text });
      toolCalls.forEach((call, index) => {
        chunk({ tool_calls: [{ index, ...call }] });
      });
      chunk({}, finish);
      send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
