// The transport of the early stdio answer (see early-stdio.js), in a module of its own so that only
// `mcp --stdio` loads the SDK: every other command imports early-stdio.js and nothing more.
import {
  isJSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import manifest from '@toolrow/mcp-server/package.json' with { type: 'json' };
import info from '@toolrow/mcp-server/server-info.json' with { type: 'json' };

/** @typedef {import('@modelcontextprotocol/server').JSONRPCMessage} JSONRPCMessage */
/** @typedef {import('@modelcontextprotocol/server').MessageExtraInfo} MessageExtraInfo */
/** @typedef {import('@modelcontextprotocol/server').Transport} Transport */

/** @implements {Transport} */
export class EarlyTransport {
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
