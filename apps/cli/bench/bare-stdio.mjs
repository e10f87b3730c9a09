// The peer of the stdio bench: a bare MCP SDK server over stdio with one tool, nothing else.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'bare', version: '0.0.0' });
server.registerTool('ping', { description: 'Answers pong.' }, async () => ({
  content: [{ type: 'text', text: 'pong' }],
}));
await server.connect(new StdioServerTransport());
