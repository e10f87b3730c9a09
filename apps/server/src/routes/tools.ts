// One tool run as the user (`toolrow call` through the app), and chips.
import { backgroundJobOf, isPropose, PROPOSE_TWINS, type ProposeToolName } from '@toolrow/catalog';
import { invokeTool, isImplementedTool } from '@toolrow/tools';
import { Hono } from 'hono';
import { z } from 'zod';
import { nonEmpty, readBody } from '../body.ts';
import { badRequest } from '../errors.ts';
import type { RequestConnection, ServerEnv } from '../request-connection.ts';
import { toWireUiState } from '../wire.ts';

import type { RouteContext } from './context.ts';

export function toolRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { currentChat, userContext } = ctx;
  const app = new Hono<ServerEnv>();

  // What `toolrow call` uses while the app runs.
  app.post('/api/tools/:name', async (c) => {
    const { state, profile } = c.var.connection;
    const name = c.req.param('name');
    const body = await readBody(
      c,
      z.strictObject({
        input: z.unknown().optional(),
        profile: nonEmpty().optional(),
        waitForExports: z.boolean().optional(),
      }),
    );
    if (!isImplementedTool(name)) {
      throw badRequest(
        `There is no tool '${name}' to run here.`,
        'List the tools with `toolrow catalog`; searchTools is the agent’s and runs only in a chat.',
      );
    }
    const runAs = body.profile ?? profile;
    await state.profiles.ensure(runAs);
    const output = await invokeTool(name, body.input ?? {}, {
      ...userContext(c.var.connection, c.req.raw.signal),
      profile: runAs,
    });
    // `toolrow call startExport` ends when the file is complete, through the app as without it,
    // and says how the export ended.
    if (body.waitForExports === true) {
      await state.exports.idle();
      const id = backgroundJobOf(name, output);
      if (id !== undefined) {
        const job = await state.exports.status(id);
        return c.json({
          output: output ?? null,
          finished: { state: job.state, rowsDone: job.rowsDone, path: job.path, error: job.error },
        });
      }
    }
    return c.json({ output: output ?? null });
  });

  // A chip's click runs the propose row's twin as the user.
  app.post('/api/chips/accept', async (c) => {
    const { state, profile } = c.var.connection;
    // The desktop sends the whole chip (kind, note, …): fields beyond these are ignored.
    const body = await readBody(
      c,
      z.object({ tool: nonEmpty(), input: z.unknown().optional(), label: z.string().optional() }),
    );
    const { tool } = body;
    // The label only describes the click in the audit log; the tool and input are what run.
    const label = typeof body.label === 'string' ? body.label.slice(0, 200) : tool;
    const twins = new Set<string>(Object.values(PROPOSE_TWINS));
    if (!twins.has(tool)) {
      throw badRequest(
        `'${tool}' is not a tool a chip can run; chips run the immediate twin of a propose tool (${[...twins].join(', ')}).`,
      );
    }
    const { chat } = await currentChat(c.var.connection);
    const output = chat?.acceptChip
      ? await chat.acceptChip(
          { tool, input: body.input, label },
          { profileId: profile, ...(c.var.connection.person ? { person: c.var.connection.person } : {}) },
        )
      : await acceptChipAsUser(c.var.connection, tool, body.input, label);
    return c.json({ uiState: toWireUiState(await state.ui.get(profile)), output });
  });

  async function acceptChipAsUser(
    connection: RequestConnection,
    tool: string,
    input: unknown,
    label: string,
  ) {
    const { state, profile } = connection;
    const proposer = (Object.entries(PROPOSE_TWINS) as [ProposeToolName, string][]).find(
      ([, twin]) => twin === tool,
    )?.[0];
    await state.audit.record({
      tool,
      input,
      decision: 'approved',
      decidedBy: 'user',
      profile,
      person: connection.person ?? null,
      detail: `The user clicked the chip "${label}"${proposer && isPropose(proposer) ? ` (from ${proposer})` : ''}.`,
    });
    return invokeTool(tool, input, userContext(connection));
  }
  return app;
}
