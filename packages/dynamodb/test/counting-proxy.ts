// An HTTP proxy in front of DynamoDB Local that writes down every request and what DynamoDB
// answered: the operation (X-Amz-Target), the table, and the items it read (ScannedCount, or the
// items a GetItem/BatchGetItem returned). What a read really cost, measured on the wire rather than
// taken from the code that claims it.
import { createServer, request, type Server } from 'node:http';

export interface RecordedRequest {
  operation: string;
  table?: string;
  index?: string;
  /** Items DynamoDB evaluated (Scan/Query: ScannedCount; GetItem/BatchGetItem: items returned). */
  items: number;
  /** Items it sent back (after a FilterExpression). */
  returned: number;
  /** Keys a GetItem or BatchGetItem asked for and DynamoDB processed: each is billed, present or not. */
  keys?: number;
  /** The request's FilterExpression, if any. */
  filter?: string;
}

export interface CountingProxy {
  /** dynamodb://127.0.0.1:<proxy port>?region=… for the same region as `target`. */
  url: string;
  requests: RecordedRequest[];
  /** The requests since the last take, and a fresh list. */
  take(): RecordedRequest[];
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const body: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => body.push(chunk));
    incoming.on('end', () => {
      const sent = Buffer.concat(body);
      const forward = request(
        {
          host: upstream.hostname,
          port: Number(upstream.port || 8000),
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          const received: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => received.push(chunk));
          answer.on('end', () => {
            const reply = Buffer.concat(received);
            const target = String(incoming.headers['x-amz-target'] ?? '');
            if (target) requests.push(record(target.split('.').pop() ?? target, sent, reply));
            outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
            outgoing.end(reply);
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502);
        outgoing.end(String(error));
      });
      forward.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.href,
    get requests() {
      return requests;
    },
    take() {
      const taken = requests;
      requests = [];
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function record(operation: string, sent: Buffer, reply: Buffer): RecordedRequest {
  const input = parse(sent);
  const output = parse(reply);
  const requestItems = input.RequestItems as Record<string, unknown> | undefined;
  const table =
    (input.TableName as string | undefined) ?? (requestItems ? Object.keys(requestItems)[0] : undefined);
  let items = 0;
  const returned = Array.isArray(output.Items)
    ? output.Items.length
    : output.Item
      ? 1
      : Object.values((output.Responses as Record<string, unknown[]> | undefined) ?? {}).reduce(
          (sum, list) => sum + list.length,
          0,
        );
  if (typeof output.ScannedCount === 'number') items = output.ScannedCount;
  else if (output.Item) items = 1;
  else if (output.Responses && typeof output.Responses === 'object')
    items = Object.values(output.Responses as Record<string, unknown[]>).reduce(
      (sum, list) => sum + list.length,
      0,
    );
  const keysOf = (tables: unknown) =>
    Object.values((tables as Record<string, { Keys?: unknown[] }> | undefined) ?? {}).reduce(
      (sum, each) => sum + (each.Keys?.length ?? 0),
      0,
    );
  const keys =
    operation === 'GetItem'
      ? 1
      : operation === 'BatchGetItem'
        ? keysOf(input.RequestItems) - keysOf(output.UnprocessedKeys)
        : undefined;
  return {
    operation,
    ...(table ? { table } : {}),
    ...(typeof input.IndexName === 'string' ? { index: input.IndexName } : {}),
    items,
    returned,
    ...(keys !== undefined ? { keys } : {}),
    ...(typeof input.FilterExpression === 'string' ? { filter: input.FilterExpression } : {}),
  };
}

function parse(buffer: Buffer): Record<string, unknown> {
  try {
    return JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
