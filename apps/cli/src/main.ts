import { nearestNames } from '@toolrow/datasource/names';
import { type CommandIo, UsageError } from './command.ts';
import { COMMANDS } from './commands/index.ts';

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
  );
  return `Usage: toolrow <command> [options] [--connection <name>]\n\nCommands:\n${lines.join('\n')}\n\n--connection <name> picks a named connection for any command that touches data (toolrow connections).\nRun \`toolrow <command> --help\` for a command's options.\n`;
}

/**
 * Takes `--connection <name>` (or `--connection=<name>`) out of the arguments, for every command
 * that touches data: it becomes TOOLROW_CONNECTION of this run. Throws a usage error without a name.
 */
export function takeConnection(args: readonly string[]): { args: string[]; connection?: string } {
  const rest: string[] = [];
  let connection: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (arg === '--connection' || arg.startsWith('--connection=')) {
      const value = arg === '--connection' ? args[++i] : arg.slice('--connection='.length);
      if (value === undefined || value === '' || value.startsWith('-'))
        throw new UsageError("--connection needs a connection's name (toolrow connections list shows them).");
      connection = value;
      continue;
    }
    rest.push(arg);
  }
  return { args: rest, ...(connection !== undefined ? { connection } : {}) };
}

/** Runs one CLI invocation and returns its exit code. */
export async function run(argv: string[], io: CommandIo = processIo()): Promise<number> {
  let taken: ReturnType<typeof takeConnection>;
  try {
    taken = takeConnection(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}
`);
    return 2;
  }
  if (taken.connection !== undefined)
    io = { ...io, env: { ...io.env, TOOLROW_CONNECTION: taken.connection } };
  const [name, ...args] = taken.args;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(help());
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    const [nearest] = nearestNames(name, Object.keys(COMMANDS), 1);
    io.stderr(`Unknown command '${name}'.${nearest ? ` Did you mean '${nearest}'?` : ''}\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(
        `${usageProblem(error.message, command.usage)}\n\n${synopsis(command.usage)}\nRun \`toolrow ${name} --help\` for every option.\n`,
      );
      return 2;
    }
    // Loaded only on failure: it pulls in the data layer, which most commands never need.
    const held = (await import('./app-client.ts')).explainHeldDatabase(name, error, io);
    io.stderr(`toolrow ${name}: ${held ?? (error instanceof Error ? error.message : String(error))}\n`);
    if (io.env.TOOLROW_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return 1;
  }
}

/** The usage's synopsis: its lines up to the first blank one (the whole help is one --help away). */
function synopsis(usage: string): string {
  const blank = usage.indexOf('\n\n');
  return blank < 0 ? usage : usage.slice(0, blank);
}

/**
 * Node's parseArgs wording, said for a person: an unknown option gets the nearest option the
 * command has (from its usage text) instead of advice about positional arguments.
 */
function usageProblem(message: string, usage: string): string {
  const ambiguous = /^Option '(-{1,2}[^' ]+)' argument is ambiguous/.exec(message);
  if (ambiguous)
    return `${ambiguous[1]}'s value starts with a dash, so it reads like another option. If you meant it as the value, write ${ambiguous[1]}=<value> (for example ${ambiguous[1]}=-1).`;
  const missing = /^Option '(-{1,2}[^' ]+)(?: <value>)?' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value: ${missing[1]} <value>.`;
  const noValue = /^Option '(-{1,2}[^' ]+)' does not take an argument/.exec(message);
  if (noValue) return `${noValue[1]} is a switch and takes no value: write just ${noValue[1]}.`;
  const positional = /^Unexpected argument '([^']*)'/.exec(message);
  if (positional) return `Unexpected argument '${positional[1]}': this command takes only the options below.`;
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(message);
  if (!unknown) return message;
  const options = [...new Set(usage.match(/--[a-z][a-z-]*/g) ?? [])];
  const [nearest] = nearestNames(unknown[1]!, options, 1);
  return `Unknown option '${unknown[1]}'.${nearest ? ` Did you mean '${nearest}'?` : ''}`;
}

export function processIo(): CommandIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}
