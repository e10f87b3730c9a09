// The command line of the app server: `npm start [-- --port N --mcp --orders N --no-build]`.
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, startApp } from './start.ts';

const USAGE = `Usage: npm start [-- options]

Builds the desktop app if needed, opens the database (creating and seeding the embedded one on
first run), and serves the app on http://127.0.0.1:${DEFAULT_PORT}/.

Options:
  --port <n>     port on 127.0.0.1 (default: TOOLROW_PORT, else ${DEFAULT_PORT}; 0 = any free port)
  --mcp          also serve MCP at /mcp and print a client config (default: TOOLROW_MCP=1)
  --orders <n>   orders in the sample shop of a new embedded database (default 50000)
  --no-build     do not build the desktop app, even when it is missing or stale

Settings (environment): TOOLROW_MODEL (the chat's model), DATABASE_URL (a PostgreSQL server
instead of the embedded database), TOOLROW_DATA_DIR (default ./.toolrow), TOOLROW_MCP_SCOPE.
`;

export async function main(argv: string[]): Promise<void> {
  let values: { port?: string; mcp?: boolean; orders?: string; 'no-build'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        mcp: { type: 'boolean' },
        orders: { type: 'string' },
        'no-build': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const number = (text: string | undefined, name: string, min: number) => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new UsageError(`--${name} must be an integer ≥ ${min} (got '${text}').`);
    return value;
  };
  try {
    const port = number(values.port, 'port', 0);
    const orders = number(values.orders, 'orders', 1);
    const app = await startApp({
      env: process.env,
      cwd: process.cwd(),
      ...(port !== undefined ? { port } : {}),
      ...(values.mcp ? { mcp: true } : {}),
      ...(orders !== undefined ? { seedOrders: orders } : {}),
      build: !values['no-build'],
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      tty: process.stderr.isTTY === true,
    });
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      process.stderr.write('\nStopping Toolrow…\n');
      await app.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `Toolrow could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    if (process.env.TOOLROW_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}

class UsageError extends Error {}
