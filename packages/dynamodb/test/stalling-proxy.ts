// A TCP proxy in front of DynamoDB Local that can stop answering: while stalled it keeps every
// connection open and forwards nothing, as an endpoint that hangs does (a network partition, an
// overloaded server). What a time limit must survive, on a real socket.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface StallingProxy {
  /** dynamodb://127.0.0.1:<proxy port>?region=… for the same region as `target`. */
  url: string;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function stallingProxy(target: string): Promise<StallingProxy> {
  const upstream = new URL(target);
  let stalled = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const remote = connect(Number(upstream.port || 8000), upstream.hostname);
    sockets.add(remote);
    client.on('data', (chunk) => {
      if (!stalled) remote.write(chunk);
    });
    remote.on('data', (chunk) => {
      if (!stalled) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      remote.destroy();
      sockets.delete(client);
      sockets.delete(remote);
    };
    client.on('close', end).on('error', end);
    remote.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.href,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
