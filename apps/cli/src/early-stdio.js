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
import {
  isJSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import manifest from '@toolrow/mcp-server/package.json' with { type: 'json' };
import info from '@toolrow/mcp-server/server-info.json' with { type: 'json' };

/** @typedef {import('@modelcontextprotocol/server').JSONRPCMessage} JSONRPCMessage */
/** @typedef {import('@modelcontextprotocol/server').MessageExtraInfo} MessageExtraInfo */
/** @typedef {import('@modelcontextprotocol/server').Transport} Transport */

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

/** @implements {Transport} */
class EarlyTransport {
  /** @type {(() => void) | undefined} */ onclose;
  /** @type {((error: Error) => void) | undefined} */ onerror;
  /** @type {((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined} */ onmessage;
  /** @type {{ message: JSONRPCMessage, extra: MessageExtraInfo | undefined }[]} */ #held = [];
  /** @type {JSONRPCMessage | undefined} */ #initialize;
  /** @type {unknown} the id of the replayed initialize, whose second answer the client must not get */
  #swallow;
  #attached = false;
  #closed = false;
  /** @type {() => void} */ #settleFirst = () => {};
  /** Settles once the client's first message is handled (initialize answered) or stdin ended. */
  firstMessage = new Promise((resolve) => {
    this.#settleFirst = () => resolve(undefined);
  });

  constructor(/** @type {Transport} */ wire) {
    this.wire = wire;
  }

  listen() {
    this.wire.onmessage = (message, extra) => this.#receive(message, extra);
    this.wire.onerror = (error) => this.onerror?.(error);
    this.wire.onclose = () => {
      this.#closed = true;
      this.#settleFirst();
      this.onclose?.();
    };
    return this.wire.start();
  }

  #receive(/** @type {JSONRPCMessage} */ message, /** @type {MessageExtraInfo | undefined} */ extra) {
    if (this.#attached) {
      this.onmessage?.(message, extra);
      return;
    }
    if (isJSONRPCRequest(message) && message.method === 'initialize' && !this.#initialize) {
      this.#initialize = message;
      this.#held.push({ message, extra });
      const asked = /** @type {{ protocolVersion?: unknown } | undefined} */ (message.params)
        ?.protocolVersion;
      const protocolVersion =
        typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
          ? asked
          : LATEST_PROTOCOL_VERSION;
      this.wire
        .send({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion,
            capabilities: info.capabilities,
            serverInfo: { name: info.name, version: manifest.version },
            instructions: info.instructions,
          },
        })
        .catch((error) => this.onerror?.(error))
        .finally(() => this.#settleFirst());
      return;
    }
    if (isJSONRPCRequest(message) && message.method === 'ping') {
      this.wire.send({ jsonrpc: '2.0', id: message.id, result: {} }).catch(() => {});
      return;
    }
    this.#held.push({ message, extra });
    this.#settleFirst();
  }

  /** The real server's start: what was held is delivered to it, in order. */
  async start() {
    this.#attached = true;
    this.#swallow = this.#initialize && 'id' in this.#initialize ? this.#initialize.id : undefined;
    for (const { message, extra } of this.#held.splice(0)) this.onmessage?.(message, extra);
    if (this.#closed) this.onclose?.();
  }

  get sessionId() {
    return this.wire.sessionId;
  }

  setProtocolVersion(/** @type {string} */ version) {
    this.wire.setProtocolVersion?.(version);
  }

  send(/** @type {JSONRPCMessage} */ message, /** @type {any} */ options) {
    if (
      this.#swallow !== undefined &&
      'id' in message &&
      message.id === this.#swallow &&
      !('method' in message)
    ) {
      // The client had its answer to initialize already.
      this.#swallow = undefined;
      return Promise.resolve();
    }
    return this.wire.send(message, options);
  }

  close() {
    return this.wire.close();
  }
}

/** @type {EarlyTransport | undefined} */
let started;

/**
 * Starts answering the handshake when the arguments serve MCP over stdio, and returns once the
 * client's first message is handled: loading the rest keeps the event loop busy, so the answer to
 * initialize goes out first (a client sends it as soon as it has started the process).
 */
export async function startEarlyStdio(/** @type {readonly string[]} */ argv) {
  if (!servesStdio(argv)) return;
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
