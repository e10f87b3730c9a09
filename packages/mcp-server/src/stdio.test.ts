import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { CATALOG_ROWS, isGated } from '@toolrow/catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsListedAt } from '../test/expected.ts';
import { connectStdio, listedNames } from '../test/helpers.ts';
import { MCP_SCOPES } from './generated/mcp-scopes.ts';

// The transport logic on its own, with scripted tools in a real child process; the CLI and the
// real tools over stdio are tested in apps/cli and toolrow.test.ts.
describe.each(MCP_SCOPES.flatMap((scope) => (['legacy', 'auto'] as const).map((era) => ({ scope, era }))))(
  'MCP over stdio (scripted tools), $scope, $era era',
  ({ scope, era }) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolrow-mcp-stdio-'));
    const logFile = join(dir, 'log.jsonl');
    let client: Client;
    const entries = () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(
          (line) =>
            JSON.parse(line) as {
              kind: string;
              name?: string;
              tool?: string;
              decision?: string;
              decidedBy?: string;
            },
        );

    beforeAll(async () => {
      writeFileSync(logFile, '');
      ({ client } = await connectStdio(
        {
          command: process.execPath,
          args: ['--conditions=@toolrow/source', join(import.meta.dirname, '../test/stdio-fixture.ts')],
          env: { FIXTURE_LOG: logFile, FIXTURE_SCOPE: scope, PATH: process.env.PATH ?? '' },
        },
        era,
      ));
    });
    afterAll(async () => {
      await client?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('lists exactly the rows the scope covers', async () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(era === 'auto' ? '2026-07-28' : '2025-11-25');
      expect(await listedNames(client)).toEqual(rowsListedAt(scope));
    });

    it.each(CATALOG_ROWS.map((row) => ({ name: row.name as string, row })))(
      'call $name',
      async ({ name, row }) => {
        const before = entries().length;
        const allowed = rowsListedAt(scope).includes(name);
        const outcome = await client.callTool({ name, arguments: {} }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error: error as Error }),
        );
        const added = entries().slice(before);
        if (allowed) {
          expect('result' in outcome && !outcome.result.isError).toBe(true);
          expect(added.filter((entry) => entry.kind === 'run')).toEqual([
            expect.objectContaining({ name, actor: 'mcp:fixture' }),
          ]);
          expect(added.filter((entry) => entry.kind === 'audit')).toHaveLength(isGated(name) ? 1 : 0);
          return;
        }
        if (row.mcp === 'excluded') {
          // Not a tool of this server at all.
          expect('error' in outcome && outcome.error.message).toContain(`Tool ${name} not found`);
        } else {
          // A result the model can read, naming the scope and how to get it; nothing ran.
          const result = 'result' in outcome ? outcome.result : undefined;
          expect(result?.isError).toBe(true);
          expect(JSON.stringify(result?.content)).toContain(
            `needs scope tables:${row.mcp}; this client holds ${scope}`,
          );
        }
        expect(added).toEqual([
          expect.objectContaining({
            kind: 'audit',
            tool: name,
            decision: 'denied',
            decidedBy: 'mcp:fixture',
          }),
        ]);
      },
    );
  },
);
