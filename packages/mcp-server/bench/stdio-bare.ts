// The floor for `toolrow mcp --stdio`'s start: an SDK server over stdio as its docs write one,
// with nothing of Toolrow loaded (bench/http.ts, "stdio start").
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

serveStdio(() => new McpServer({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } }), {
  transport: new StdioServerTransport(),
});
process.stdin.on('end', () => process.exit(0));
