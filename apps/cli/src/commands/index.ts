import type { Command } from '../command.ts';

/** A subcommand: its line in `toolrow help`, and its module, loaded only when it runs. */
export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

/** Every `toolrow` subcommand, in the order `toolrow help` lists them. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  call: {
    summary: 'Run one tool with a JSON input, as the user, and print its output',
    load: async () => (await import('./call.ts')).callCommand,
  },
  catalog: {
    summary: 'Show the tool rows and every set derived from them',
    load: async () => (await import('./catalog.ts')).catalogCommand,
  },
  chat: {
    summary: 'Chat with the agent in the terminal (approvals at the prompt, proposals as choices)',
    load: async () => (await import('./chat.ts')).chatCommand,
  },
  connections: {
    summary: 'Name your databases: add, list, test, choose the default, set mode and MCP exposure',
    load: async () => (await import('./connections.ts')).connectionsCommand,
  },
  db: {
    summary: 'Seed the sample shop, or show where the data lives and what is in it',
    load: async () => (await import('./db.ts')).dbCommand,
  },
  eval: {
    summary: 'Measure a model on the request corpus: right tool picked, searched when needed, tokens',
    load: async () => (await import('./eval.ts')).evalCommand,
  },
  mcp: {
    summary: 'Serve the tools to MCP clients (stdio or HTTP) and manage their tokens',
    load: async () => (await import('./mcp.ts')).mcpCommand,
  },
  'search-tools': {
    summary: 'Rank the tool catalog for a query, as the agent’s searchTools does',
    load: async () => (await import('./search-tools.ts')).searchToolsCommand,
  },
  serve: {
    summary: 'Serve the app (tables, agent chat, staging review) on 127.0.0.1; what npm start runs',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  staging: {
    summary: 'Review staged changes, then commit or discard them (you, never the agent)',
    load: async () => (await import('./staging.ts')).stagingCommand,
  },
};
