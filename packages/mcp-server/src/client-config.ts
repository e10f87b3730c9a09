// The ready-to-paste client configuration printed when MCP is enabled. The `mcpServers` shape is
// what Claude Desktop, Claude Code, Cursor and VS Code-style clients read.
import type { McpScope } from './generated/mcp-scopes.ts';
import { STDIO_ENV } from './stdio.ts';

export type McpClientConfig =
  | { kind: 'http'; url: string | URL; token?: string; scope?: McpScope; serverName?: string }
  | {
      kind: 'stdio';
      scope: McpScope;
      /** The command that starts the CLI (default: npx toolrow). */
      command?: readonly [string, ...string[]];
      /** Extra environment for the server process, e.g. TOOLROW_DATA_DIR or DATABASE_URL. */
      env?: Record<string, string>;
      /** A token to run as (its name becomes the audit actor); omitted: the local user at `scope`. */
      token?: string;
      serverName?: string;
    };

/** Used when no token is given yet: says how to get one. */
export function tokenPlaceholder(scope: McpScope = 'tables:readonly'): string {
  return `<paste the token printed by: toolrow mcp token create --scope ${scope}>`;
}

/** The client config as pretty JSON text, ready to paste into the client's MCP settings. */
export function renderClientConfig(config: McpClientConfig): string {
  const serverName = config.serverName ?? 'toolrow';
  let entry: Record<string, unknown>;
  if (config.kind === 'http') {
    entry = {
      type: 'http',
      url: String(config.url),
      headers: { Authorization: `Bearer ${config.token ?? tokenPlaceholder(config.scope)}` },
    };
  } else {
    const [command, ...prefix] = config.command ?? ['npx', 'toolrow'];
    const env: Record<string, string> = { ...config.env };
    if (config.token) env[STDIO_ENV.token] = config.token;
    entry = {
      type: 'stdio',
      command,
      args: [...prefix, 'mcp', '--stdio', '--scope', config.scope],
      ...(Object.keys(env).length > 0 ? { env } : {}),
    };
  }
  return `${JSON.stringify({ mcpServers: { [serverName]: entry } }, null, 2)}\n`;
}
