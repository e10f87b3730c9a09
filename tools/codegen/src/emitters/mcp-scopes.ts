import type { Emitter } from './emitter.ts';
import { arrayRecord, docComment, file, stringArray, stringRecord } from './format.ts';

export const mcpScopesEmitter: Emitter = {
  id: 'mcp-scopes',
  path: 'packages/mcp-server/src/generated/mcp-scopes.ts',
  what: 'which tools each MCP scope lists and may call, in all and per engine; the scope each tool needs; exclusions',
  emit: ({ catalog, header }) =>
    file(
      header,
      "import type { ToolName } from '@toolrow/catalog';",
      [
        docComment(
          'The scopes an MCP client can hold, narrowest first. Each covers everything the narrower ones do.',
        ),
        `export const MCP_SCOPES = ${stringArray(catalog.mcp.scopeTable.map(([scope]) => scope))} as const;`,
        '',
        'export type McpScope = (typeof MCP_SCOPES)[number];',
      ].join('\n'),
      [
        docComment('For each scope, exactly the tools a client holding it may list and call.'),
        `export const MCP_SCOPE_TOOLS = ${arrayRecord(catalog.mcp.scopeTable)} as const satisfies Readonly<Record<McpScope, readonly ToolName[]>>;`,
      ].join('\n'),
      [
        docComment('For each exposed tool, the narrowest scope that may call it.'),
        `export const MCP_REQUIRED_SCOPE = ${stringRecord(catalog.mcp.requiredScope)} as const satisfies Readonly<Partial<Record<ToolName, McpScope>>>;`,
        '',
        'export type McpToolName = keyof typeof MCP_REQUIRED_SCOPE;',
      ].join('\n'),
      [
        docComment('Never listed or callable over MCP, whatever the scope.'),
        `export const MCP_EXCLUDED_TOOLS = ${stringArray(catalog.mcp.excluded)} as const satisfies readonly ToolName[];`,
      ].join('\n'),
    ),
};
