import { parseArgs } from 'node:util';
import { DEFAULT_PORT, startApp } from '@toolrow/server';
import { type Command, UsageError } from '../command.ts';

const USAGE = `Usage: toolrow serve [options]      (npm start runs this)

Builds the desktop app if needed, opens the database (creating and seeding the embedded one on
first run), and serves the app on 127.0.0.1:${DEFAULT_PORT} until Ctrl+C. It prints the link to open,
http://127.0.0.1:${DEFAULT_PORT}/?token=…: every page and API call needs that token (scripts send
Authorization: Bearer <token>). While it runs, \`toolrow staging\` and \`toolrow call\` go through it.

Options:
  --port <n>     port on 127.0.0.1 (default: TOOLROW_PORT, else ${DEFAULT_PORT}; 0 = any free port)
  --host <addr>  address to listen on (default: TOOLROW_HOST, else 127.0.0.1); another address
                 only in team mode (TOOLROW_OIDC_*: people sign in), e.g. behind a load balancer
  --mcp          also serve MCP at /mcp and print a client config (default: TOOLROW_MCP=1)
  --orders <n>   orders in the sample shop of a new embedded database (default 50000)
  --no-build     do not build the desktop app, even when it is missing or stale

Settings (environment): TOOLROW_MODEL (the chat's model), DATABASE_URL (a PostgreSQL server
instead of the embedded database), TOOLROW_DATA_DIR (default ./.toolrow), TOOLROW_MCP_SCOPE,
TOOLROW_APP_TOKEN (a fixed token instead of a new one on every start).`;

function integer(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max.toLocaleString('en-US')} (got '${text}').`,
    );
  return value;
}

export const serveCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    let values: { port?: string; host?: string; mcp?: boolean; orders?: string; 'no-build'?: boolean };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          mcp: { type: 'boolean' },
          orders: { type: 'string' },
          'no-build': { type: 'boolean' },
        },
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    // Checked before anything starts: a bad value creates no folder and waits for nothing.
    const port = integer(values.port, 'port', 0, 65_535);
    const orders = integer(values.orders, 'orders', 1, 10_000_000);
    let app: Awaited<ReturnType<typeof startApp>>;
    try {
      app = await startApp({
        env: io.env,
        cwd: io.cwd,
        ...(port !== undefined ? { port } : {}),
        ...(values.host ? { host: values.host } : {}),
        ...(values.mcp ? { mcp: true } : {}),
        ...(orders !== undefined ? { seedOrders: orders } : {}),
        build: !values['no-build'],
        out: io.stdout,
        err: io.stderr,
        tty: process.stderr.isTTY === true,
      });
    } catch (error) {
      throw new Error(`Toolrow could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Serve until asked to stop, then close the server and the database cleanly.
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    io.stderr('\nStopping Toolrow…\n');
    await app.close();
    return 0;
  },
};
