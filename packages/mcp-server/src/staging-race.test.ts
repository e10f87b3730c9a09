// The user commits (as the app's staging review does) while an MCP client with tables:readonly
// polls listStagedChanges over HTTP: 50 rounds, and every staged insert is applied exactly once
// and leaves the staging area, whatever the poll saw in between. Real SDK client, both engines.
import type { Client } from '@modelcontextprotocol/client';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveToolrowMcp } from '../test/fixture.ts';
import { connectHttp } from '../test/helpers.ts';
import type { RunningMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

const ROUNDS = 50;

describe.each(testStores())('$name: committing while an MCP client polls the staging area', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let client: Client;

  beforeAll(async () => {
    toolrow = await open();
    await sqlDatabaseOf(toolrow.source).exec(
      'CREATE TABLE notes (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL)',
    );
    await toolrow.source.schema.refresh();
    server = await serveToolrowMcp(toolrow);
    const { token } = await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'poller' });
    client = await connectHttp(server.url, token);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await toolrow?.close();
  });

  it(`${ROUNDS} rounds: each commit applies its insert once and leaves nothing staged`, async () => {
    const { staging } = toolrow.state;
    let polls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const label = `round ${round}`;
      await staging.stageInsert('notes', [{ label }], { actor: 'mcp:writer' });
      let committing = true;
      const poller = (async () => {
        while (committing) {
          const result = await client.callTool({ name: 'listStagedChanges', arguments: {} });
          expect(result.isError).toBeFalsy();
          polls += 1;
        }
      })();
      const committed = await staging.commit();
      committing = false;
      await poller;
      expect(committed).toMatchObject({ ok: true, applied: { insert: 1 } });
      expect(await staging.list()).toEqual([]);
      expect(await staging.commit()).toMatchObject({ ok: true, applied: { insert: 0 } });
      const rows = await sqlDatabaseOf(toolrow.source).query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notes WHERE label = $1',
        [label],
      );
      expect(rows.rows[0]!.n).toBe(1);
    }
    expect(polls).toBeGreaterThanOrEqual(ROUNDS);
  }, 300_000);
});
