import type { Command } from '../command.ts';
import { callCommand } from './call.ts';
import { catalogCommand } from './catalog.ts';
import { chatCommand } from './chat.ts';
import { dbCommand } from './db.ts';
import { mcpCommand } from './mcp.ts';
import { searchToolsCommand } from './search-tools.ts';
import { serveCommand } from './serve.ts';
import { stagingCommand } from './staging.ts';

/** Every `toolrow` subcommand, in the order `toolrow help` lists them. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  call: callCommand,
  catalog: catalogCommand,
  chat: chatCommand,
  db: dbCommand,
  mcp: mcpCommand,
  'search-tools': searchToolsCommand,
  serve: serveCommand,
  staging: stagingCommand,
};
