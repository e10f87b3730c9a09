// `toolrow mcp --stdio` as a client starts it: the client gives the server seconds to answer
// initialize, and the CLI, the tools and the data take longer to load than a bare SDK server. So
// the bin answers the handshake (initialize, ping) first, from what the server says of itself
// (@toolrow/mcp-server's server-info.json and version), and keeps every other message until the
// real server is attached (serveMcpStdio's `wire`); it then replays the client's initialize to
// that server, which so learns the client's capabilities, drops its second answer, and passes the
// held and the following messages through.
//
// Plain JavaScript on purpose: the first TypeScript module a process loads starts Node's type
// stripper (about 200 ms), and the answer to initialize must not wait for that. Only the real
// process does this; tests that run the CLI in process never touch its stdin.
/** Whether these arguments serve MCP over stdio (not its help, not HTTP, not a token command). */
export function servesStdio(/** @type {readonly string[]} */ argv) {
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--connection') i++;
    else if (!argv[i]?.startsWith('--connection=')) args.push(argv[i]);
  }
  return (
    args[0] === 'mcp' &&
    args.includes('--stdio') &&
    !args.some((arg) => ['--http', '--help', '-h'].includes(arg))
  );
}

/** @type {import('./early-transport.js').EarlyTransport | undefined} */
let started;

/**
 * Starts answering the handshake when the arguments serve MCP over stdio, and returns once the
 * client's first message is handled: loading the rest keeps the event loop busy, so the answer to
 * initialize goes out first (a client sends it as soon as it has started the process).
 */
export async function startEarlyStdio(/** @type {readonly string[]} */ argv) {
  if (!servesStdio(argv)) return;
  const [{ EarlyTransport }, { StdioServerTransport }] = await Promise.all([
    import('./early-transport.js'),
    import('@modelcontextprotocol/server/stdio'),
  ]);
  started = new EarlyTransport(new StdioServerTransport());
  started.listen().catch((error) => started?.onerror?.(error));
  await started.firstMessage;
}

/** The started wire, once: the mcp command serves on it. */
export function takeEarlyStdio() {
  const taken = started;
  started = undefined;
  return taken;
}

/** Closes a wire nobody took (the command failed before serving), so the process can end. */
export async function closeUntakenEarlyStdio() {
  await takeEarlyStdio()?.close();
}
