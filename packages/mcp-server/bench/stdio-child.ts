// One stdio MCP server process for the bench: `bare|toolrow noop|real list|call`.
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { serveMcpStdio } from '../src/stdio.ts';
import { type BackendKind, bareServer, CALL_TOOL, LISTING, openPeers } from './peers.ts';

const [server, backend, op] = process.argv.slice(2) as ['bare' | 'toolrow', BackendKind, 'list' | 'call'];
const peers = await openPeers(backend);
if (server === 'bare') {
  const tools = op === 'list' ? LISTING : [CALL_TOOL];
  serveStdio(() => bareServer(tools, peers.runCall), { transport: new StdioServerTransport() });
} else {
  serveMcpStdio({ backend: peers.toolrowBackend, principal: { name: 'bench', scope: 'tables:full' } });
}
// The databases are in memory: nothing to keep when the parent hangs up.
process.stdin.on('end', () => process.exit(0));
