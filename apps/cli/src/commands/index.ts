import type { Command } from '../command.ts';
import { catalogCommand } from './catalog.ts';
import { mcpCommand } from './mcp.ts';

/** Every `toolrow` subcommand, in the order `toolrow help` lists them. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  catalog: catalogCommand,
  mcp: mcpCommand,
};
