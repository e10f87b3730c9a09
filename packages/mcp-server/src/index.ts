export * from './generated/mcp-scopes.ts';
