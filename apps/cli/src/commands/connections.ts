import { parseArgs } from 'node:util';
import { isDataSourceError } from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';
import { MCP_SCOPES, type McpScope } from '@toolrow/mcp-server/scopes';
import {
  type AddedConnection,
  type AppStateHandle,
  addConnection,
  type ConnectionFindings,
  type ConnectionInfo,
  checkConnectionName,
  inspectConnection,
  openAppState,
  openConnectionData,
  PERMISSION_MODES,
  type PermissionMode,
  parseConnectionUrl,
  readSecrets,
  UNNAMED_CONNECTION,
  unknownConnection,
  writeSecret,
} from '@toolrow/state';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { formatTable, toJson } from '../format.ts';

const MCP_CHOICES = ['off', ...MCP_SCOPES.map((scope) => scope.replace('tables:', ''))];

/** The usage, with each installed engine's URL forms (an engine registered later shows too). */
const usage = () => `Usage: toolrow connections <subcommand> [options]

  list [--json]
        The named connections (URLs without passwords), each one's permission mode and MCP
        exposure, and which one commands use when none is named.
  add <name> <url> [--mode ${PERMISSION_MODES.join('|')}] [--mcp ${MCP_CHOICES.join('|')}] [--no-test]
        Test a connection, then save it under a name. <url>, by engine:
${installedEngines.engines.map((engine) => `          ${engine.label}: ${engine.urlForms}`).join('\n')}
        A password in the URL is kept in <data dir>/connection-secrets.json (0600), never in
        Toolrow's state or any listing; leave it out to use the driver's own (PostgreSQL:
        PGPASSWORD or ~/.pgpass; DynamoDB's URL holds none: the AWS profile signs). Mode
        defaults to manual, MCP exposure to off.
  set <name> [--mode ${PERMISSION_MODES.join('|')}] [--mcp ${MCP_CHOICES.join('|')}] [--max-items-read <n>]
        Change a connection's permission mode, MCP exposure (the scope ceiling of MCP clients), or
        the items one read may evaluate where its engine bills reads per item (${installedEngines.engines
          .filter((engine) => engine.readBound)
          .map(
            (engine) =>
              `${engine.label}: ${engine.readBound!.setting} in the URL, default ${engine.readBound!.default.toLocaleString('en-US')}`,
          )
          .join('; ')}). The agent cannot change it.
  use <name|${UNNAMED_CONNECTION}>
        The connection commands and the app use when none is named ('${UNNAMED_CONNECTION}': DATABASE_URL
        when set, else the embedded sample shop).
  test [<name>] [--json]
        Connect, and say what was found and which read-only layers hold.
  remove <name>
        Forget a connection and its stored password (its staged changes and history stay).

Every command that touches data takes --connection <name> (or TOOLROW_CONNECTION). Which
connection a command uses: --connection, else DATABASE_URL (the unnamed one), else the one
\`connections use\` chose, else the embedded sample shop.`;

function parse(
  args: string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'],
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parseMode(text: string | undefined): PermissionMode | undefined {
  if (text === undefined) return undefined;
  if ((PERMISSION_MODES as readonly string[]).includes(text)) return text as PermissionMode;
  throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(', ')}, got '${text}'.`);
}

/** `--mcp off|readonly|staged|full` → null (off) or the scope. */
function parseMcp(text: string | undefined): McpScope | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  const scope = MCP_SCOPES.find((candidate) => candidate === text || candidate === `tables:${text}`);
  if (scope) return scope;
  throw new UsageError(`--mcp must be one of ${MCP_CHOICES.join(', ')}, got '${text}'.`);
}

function positionals(found: string[], names: string[], command: string): string[] {
  if (found.length < names.length)
    throw new UsageError(`connections ${command} needs ${names.map((name) => `<${name}>`).join(' ')}.`);
  if (found.length > names.length)
    throw new UsageError(
      `connections ${command} takes ${names.length === 0 ? 'no' : names.length} argument${names.length === 1 ? '' : 's'}; got '${found.slice(names.length).join(' ')}' too.`,
    );
  return found;
}

/** A name as typed, checked: a usage error names the rule. */
function nameOf(text: string): string {
  try {
    return checkConnectionName(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The error for a name that is no connection, naming those there are. */
async function unknown(state: AppStateHandle, name: string): Promise<Error> {
  const names = (await state.connections.list()).filter((each) => each.named).map((each) => each.name);
  return unknownConnection(name, names);
}

async function withState<T>(io: CommandIo, fn: (state: AppStateHandle) => Promise<T>): Promise<T> {
  const state = await openAppState({ env: io.env, cwd: io.cwd });
  try {
    return await fn(state);
  } finally {
    await state.close();
  }
}

function printFound(io: CommandIo, name: string, found: ConnectionFindings): void {
  io.stdout(
    [
      `Connected to ${name} (${found.description}): ${found.tables} table${found.tables === 1 ? '' : 's'}.`,
      'Read-only layers:',
      ...found.readLayers.map(
        (layer) => `  ${layer.active ? '[on] ' : '[off]'} ${layer.layer}: ${layer.detail}`,
      ),
      ...found.notes.map((note) => `Note: ${note}`),
      '',
    ].join('\n'),
  );
}

async function list(io: CommandIo, json: boolean): Promise<number> {
  return withState(io, async (state) => {
    const [connections, secrets, profiles, chosen] = await Promise.all([
      state.connections.list(),
      readSecrets(state.dataDir),
      state.profiles.list(),
      state.connections.defaultName(),
    ]);
    const modeOf = (name: string) => profiles.find((profile) => profile.name === name)?.mode ?? 'manual';
    const named = connections.filter((connection): connection is ConnectionInfo & { url: string } =>
      Boolean(connection.named && connection.url),
    );
    const unnamed = io.env.DATABASE_URL?.trim()
      ? 'DATABASE_URL (PostgreSQL)'
      : `the embedded sample shop in ${state.dataDir}`;
    const rows = named.map((connection) => ({
      name: connection.name,
      engine: connection.engine,
      url: connection.url,
      mode: modeOf(connection.name),
      mcp: connection.mcpScope ?? 'off',
      passwordStored: Object.hasOwn(secrets, connection.name),
      default: connection.name === chosen,
    }));
    if (json) {
      io.stdout(
        toJson({
          connections: rows,
          unnamed: { name: UNNAMED_CONNECTION, description: unnamed, mode: modeOf(UNNAMED_CONNECTION) },
          default: chosen ?? UNNAMED_CONNECTION,
        }),
      );
      return 0;
    }
    const table =
      rows.length === 0
        ? 'No named connections yet. Add one: toolrow connections add <name> postgres://user@host:5432/db'
        : formatTable(
            ['', 'name', 'engine', 'url', 'password', 'mode', 'mcp'],
            rows.map((row) => [
              row.default ? '*' : '',
              row.name,
              row.engine,
              row.url,
              row.passwordStored
                ? 'stored'
                : (installedEngines.driver(row.engine)?.driver.credentials ?? '-'),
              row.mode,
              row.mcp,
            ]),
          );
    io.stdout(
      `${table}\n\n${chosen ? '' : '* '}${UNNAMED_CONNECTION}: ${unnamed} (mode ${modeOf(UNNAMED_CONNECTION)})${chosen ? '' : ' — used when no connection is named'}\n`,
    );
    return 0;
  });
}

async function add(io: CommandIo, args: string[]): Promise<number> {
  const { values, positionals: found } = parse(args, {
    mode: { type: 'string' },
    mcp: { type: 'string' },
    'no-test': { type: 'boolean' },
  });
  const [rawName, rawUrl] = positionals(found, ['name', 'url'], 'add');
  const name = nameOf(rawName!);
  const mode = parseMode(values.mode as string | undefined);
  const mcpScope = parseMcp(values.mcp as string | undefined);
  try {
    parseConnectionUrl(rawUrl!, io.cwd);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return withState(io, async (state) => {
    let added: AddedConnection;
    try {
      added = await addConnection(
        state,
        { name, url: rawUrl!, ...(mode ? { mode } : {}), mcpScope: mcpScope ?? null },
        { env: io.env, cwd: io.cwd, test: !values['no-test'] },
      );
    } catch (error) {
      if (isDataSourceError(error, 'connection'))
        throw new Error(
          `${error.message.replace(/ Nothing was saved\.$/, '')} Nothing was saved (pass --no-test to save it untested).`,
        );
      throw error;
    }
    if (added.found) printFound(io, name, added.found);
    io.stdout(
      `Saved connection '${name}' (${added.target.description})${added.passwordStored ? ', its password in connection-secrets.json (0600)' : ''}; mode ${mode ?? 'manual'}, MCP ${mcpScope ?? 'off'}. Use it with --connection ${name}, or make it the default: toolrow connections use ${name}\n`,
    );
    return 0;
  });
}

async function set(io: CommandIo, args: string[]): Promise<number> {
  const { values, positionals: found } = parse(args, {
    mode: { type: 'string' },
    mcp: { type: 'string' },
    'max-items-read': { type: 'string' },
  });
  const [raw] = positionals(found, ['name'], 'set');
  const mode = parseMode(values.mode as string | undefined);
  const mcpScope = parseMcp(values.mcp as string | undefined);
  const readBound = values['max-items-read'] as string | undefined;
  if (mode === undefined && mcpScope === undefined && readBound === undefined)
    throw new UsageError('connections set needs --mode, --mcp or --max-items-read.');
  return withState(io, async (state) => {
    const name = raw!;
    if (name !== UNNAMED_CONNECTION && !(await state.connections.get(name))) throw await unknown(state, name);
    // Every change is checked before any is made: a bad count changes nothing.
    let bound = '';
    let newUrl: { url: string; description: string } | undefined;
    if (readBound !== undefined) {
      const stored = name === UNNAMED_CONNECTION ? undefined : (await state.connections.get(name))?.url;
      if (!stored)
        throw new UsageError(
          `The unnamed connection's URL is DATABASE_URL: set its read bound there; --max-items-read is for named connections.`,
        );
      const engine = installedEngines.forUrl(stored);
      if (!engine.readBound)
        throw new Error(
          `${engine.label} reads have no item bound to set: --max-items-read is for engines that bill reads per item (${installedEngines.engines
            .filter((each) => each.readBound)
            .map((each) => each.label)
            .join(', ')}).`,
        );
      const url = new URL(stored);
      url.searchParams.set(engine.readBound.setting, readBound.trim());
      // The engine reads the new URL as it reads any: a bad count is refused, nothing saved.
      const parsed = parseConnectionUrl(url.href, io.cwd);
      newUrl = parsed.target;
      bound = ` reads up to ${Number(readBound).toLocaleString('en-US')} items (${engine.readBound.setting} in its URL)`;
    }
    if (mcpScope !== undefined) {
      if (name === UNNAMED_CONNECTION)
        throw new UsageError(
          `The unnamed connection's MCP exposure is set when you run toolrow mcp; --mcp is for named connections.`,
        );
      await state.connections.setMcpScope(name, mcpScope);
    }
    if (newUrl) await state.connections.setUrl(name, newUrl.url, newUrl.description);
    if (mode) {
      await state.profiles.ensure(name);
      await state.profiles.setMode(name, mode);
    }
    io.stdout(
      `Connection '${name}':${mode ? ` mode ${mode}` : ''}${mcpScope !== undefined ? ` MCP ${mcpScope ?? 'off'}` : ''}${bound}.\n`,
    );
    return 0;
  });
}

async function use(io: CommandIo, args: string[]): Promise<number> {
  const { positionals: found } = parse(args, {});
  const [name] = positionals(found, ['name'], 'use');
  return withState(io, async (state) => {
    await state.connections.setDefault(name === UNNAMED_CONNECTION ? undefined : name);
    io.stdout(
      name === UNNAMED_CONNECTION
        ? 'Commands and the app now use the unnamed connection (DATABASE_URL, else the embedded sample shop).\n'
        : `Commands and the app now use '${name}' when no connection is named${io.env.DATABASE_URL?.trim() ? ' (DATABASE_URL is set in this shell and wins until you unset it)' : ''}.\n`,
    );
    return 0;
  });
}

async function test(io: CommandIo, args: string[]): Promise<number> {
  const { values, positionals: found } = parse(args, { json: { type: 'boolean' } });
  if (found.length > 1) throw new UsageError(`connections test takes one name; got '${found.join(' ')}'.`);
  const { source, connection } = await openConnectionData({
    env: io.env,
    cwd: io.cwd,
    ...(found[0] !== undefined ? { connection: found[0] } : {}),
  });
  try {
    const result = await inspectConnection(source);
    if (values.json) io.stdout(toJson({ name: connection.name, ...result }));
    else printFound(io, connection.name, result);
    return 0;
  } finally {
    await source.close();
  }
}

async function remove(io: CommandIo, args: string[]): Promise<number> {
  const { positionals: found } = parse(args, {});
  const [name] = positionals(found, ['name'], 'remove');
  return withState(io, async (state) => {
    const hadPassword = Object.hasOwn(await readSecrets(state.dataDir), name!);
    const removed = await state.connections.remove(name!);
    await writeSecret(state.dataDir, name!, undefined);
    if (!removed) throw await unknown(state, name!);
    io.stdout(
      `Removed connection '${name}'${hadPassword ? ' and its stored password' : ''}. Its staged changes and history stay under its name.\n`,
    );
    return 0;
  });
}

export const connectionsCommand: Command = {
  get usage() {
    return usage();
  },
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'list': {
        const { values, positionals: found } = parse(rest, { json: { type: 'boolean' } });
        positionals(found, [], 'list');
        return list(io, values.json === true);
      }
      case 'add':
        return add(io, rest);
      case 'set':
        return set(io, rest);
      case 'use':
        return use(io, rest);
      case 'test':
        return test(io, rest);
      case 'remove':
        return remove(io, rest);
      case undefined:
        return list(io, false);
      default:
        throw new UsageError(`Unknown subcommand '${sub}'. Use list, add, set, use, test or remove.`);
    }
  },
};
