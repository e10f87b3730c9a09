// A stdio MCP server with scripted tools, for stdio.test.ts: it appends every run and audit
// record to the JSON-lines file named by FIXTURE_LOG, so the test can see what happened.
import { appendFileSync } from 'node:fs';
import * as z from 'zod';
import type { McpBackend } from '../src/backend.ts';
import { parseScope } from '../src/scopes.ts';
import { serveMcpStdio } from '../src/stdio.ts';

const log = (entry: unknown) =>
  appendFileSync(process.env.FIXTURE_LOG as string, `${JSON.stringify(entry)}\n`);
const backend: McpBackend = {
  inputSchemaOf: () => z.object({}).passthrough(),
  parseInput: (_name, rawInput) => rawInput,
  async run(name, input, call) {
    log({ kind: 'run', name, input, actor: call.actor });
    return { ran: name };
  },
  async audit(record) {
    log({ kind: 'audit', ...record });
  },
};
const running = serveMcpStdio({
  backend,
  principal: { name: 'fixture', scope: parseScope(process.env.FIXTURE_SCOPE as string) },
});
await running.closed;
