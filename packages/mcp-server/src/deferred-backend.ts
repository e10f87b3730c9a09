// A backend whose databases are still opening. What a client needs first (initialize, tools/list,
// checking an input) comes from the tool rows alone and answers at once; every call that needs the
// data waits for it, and if it cannot be opened, fails with the reason as its tool result instead
// of the server dying under the client ("Connection closed").
import { implementationOf, parseToolInput } from '@toolrow/tools';
import type { McpBackend } from './backend.ts';

export function deferredBackend(profile: string, opening: Promise<McpBackend>): McpBackend {
  // Awaited by every call; also settled here, so a failure no call asked about is not unhandled.
  opening.catch(() => {});
  const ready = () => opening;
  return {
    profile,
    inputSchemaOf: (name) => implementationOf(name).inputSchema,
    parseInput: (name, rawInput) => parseToolInput(name, rawInput),
    run: async (name, input, call) => (await ready()).run(name, input, call),
    audit: async (record) => (await ready()).audit(record),
    permissions: async (actor) => (await ready()).permissions(actor),
    tablesOf: async (name, input) => (await ready()).tablesOf(name, input),
    rememberGrant: async (grant, actor) => (await ready()).rememberGrant(grant, actor),
    async tables() {
      const backend = await ready();
      return backend.tables ? backend.tables() : [];
    },
    async describeTable(qualifiedName) {
      const backend = await ready();
      if (!backend.describeTable) throw new Error('This server does not describe tables as resources.');
      return backend.describeTable(qualifiedName);
    },
  };
}
