// Test-only helpers: real SDK clients over real sockets and processes.
import { request } from 'node:http';
import { connect } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** 'legacy': the 2025 initialize handshake (the SDK's default); 'auto': probe for the 2026-07-28 era. */
export type Era = 'legacy' | 'auto';

export async function connectHttp(url: URL, token?: string, era: Era = 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'toolrow-test', version: '0.0.0' },
    { versionNegotiation: { mode: era } },
  );
  const transport = new StreamableHTTPClientTransport(url, {
    ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
    // A static token cannot be stepped up: surface the 403 as InsufficientScopeError.
    onInsufficientScope: 'throw',
  });
  await client.connect(transport);
  return client;
}

/** A client that declares elicitation (form mode) and answers every ask with `elicit`. */
export interface Eliciting {
  capabilities: { elicitation: { form: Record<string, never> } };
  elicit: () => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };
}

export async function connectStdio(
  options: { command: string; args: string[]; env: Record<string, string>; cwd?: string },
  era: Era = 'legacy',
  eliciting?: Eliciting,
): Promise<{ client: Client; stderr: () => string }> {
  const client = new Client(
    { name: 'toolrow-test', version: '0.0.0' },
    { versionNegotiation: { mode: era }, ...(eliciting ? { capabilities: eliciting.capabilities } : {}) },
  );
  if (eliciting) client.setRequestHandler('elicitation/create', async () => eliciting.elicit());
  const transport = new StdioClientTransport({ ...options, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export async function listedNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** A raw JSON-RPC tools/call POST, for the cases where a client library would refuse to send it. */
export function rawToolCall(url: URL, name: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
}

/** A POST through node:http, which (unlike fetch) lets a test set the Host header. */
export function rawRequest(
  url: URL,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

/** The status line of a request written to the socket as it is: HTTP/1.0 may leave Host out, fetch cannot. */
export function rawSocketStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n`));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}
