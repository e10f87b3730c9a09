// Team mode's people and personal tokens. Anyone signed in makes, lists and revokes their own
// personal tokens (the CLI's: `TOOLROW_URL=… TOOLROW_TOKEN=trp_… toolrow …`), which act with their
// role and end with them. An admin lists the team and removes a person: their sessions and every
// token they hold end at once, on every instance.
import { createToken, isMcpScope, type McpScope, parseTtl, scopeCovers } from '@toolrow/mcp-server';
import type { PersonalToken, ToolrowState } from '@toolrow/state';
import { Hono } from 'hono';
import { z } from 'zod';
import { nonEmpty, readBody } from '../body.ts';
import { badRequest, HttpError } from '../errors.ts';
import type { ServerEnv } from '../request-connection.ts';
import { ROLE_MCP_SCOPE } from './roles.ts';

/** Personal tokens last this long unless the request says otherwise. */
const DEFAULT_PERSONAL_TTL = '90d';

const wireToken = (token: PersonalToken) => ({
  name: token.name,
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString() ?? null,
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
});

export function peopleRoutes(state: () => ToolrowState): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.get('/api/team/tokens', async (c) => {
    const member = c.get('member')!;
    return c.json({ tokens: (await state().team.tokens(member.email)).map(wireToken) });
  });

  app.post('/api/team/tokens', async (c) => {
    const member = c.get('member')!;
    // A token makes no other token: only a person at the app, signed in, does.
    if (member.via !== 'session')
      throw new HttpError(
        403,
        'role',
        'A personal token cannot make another; sign in to the app to make one.',
      );
    const body = await readBody(c, z.strictObject({ name: nonEmpty(), ttl: nonEmpty().optional() }));
    let ttlMs: number | null;
    try {
      ttlMs = parseTtl(body.ttl ?? DEFAULT_PERSONAL_TTL);
    } catch (error) {
      throw badRequest((error as Error).message);
    }
    const { token, record } = await state().team.createToken(member.email, body.name, ttlMs);
    return c.json({ token, ...wireToken(record), role: member.role });
  });

  app.delete('/api/team/tokens/:name', async (c) => {
    const member = c.get('member')!;
    const name = c.req.param('name');
    if (!(await state().team.revokeToken(member.email, name)))
      throw new HttpError(
        404,
        'not-found',
        `You have no live personal token named '${name}'.`,
        'GET /api/team/tokens lists yours.',
      );
    return c.json({ revoked: name });
  });

  // MCP tokens of one's own: bound to the person and the connection, never beyond their role.
  app.post('/api/team/mcp-tokens', async (c) => {
    const member = c.get('member')!;
    if (member.via !== 'session')
      throw new HttpError(
        403,
        'role',
        'A personal token cannot make an MCP token; sign in to the app to make one.',
      );
    const body = await readBody(
      c,
      z.strictObject({ name: nonEmpty(), scope: nonEmpty().optional(), ttl: nonEmpty().optional() }),
    );
    const most = ROLE_MCP_SCOPE[member.role];
    const scope = (body.scope ?? most) as McpScope;
    if (!isMcpScope(scope))
      throw badRequest(`'${body.scope}' is not an MCP scope (tables:readonly, tables:staged, tables:full).`);
    if (!scopeCovers(most, scope))
      throw new HttpError(
        403,
        'role',
        `As ${member.role} your MCP tokens hold at most ${most}; ${scope} was asked. Nothing was made.`,
        `Ask for ${most}, or for a role that allows more.`,
      );
    let ttlMs: number | null;
    try {
      ttlMs = parseTtl(body.ttl ?? DEFAULT_PERSONAL_TTL);
    } catch (error) {
      throw badRequest((error as Error).message);
    }
    const created = await createToken(state().tokens, {
      scope,
      name: body.name,
      ttlMs,
      connection: c.var.connection.profile,
      person: member.email,
    });
    return c.json({ token: created.token, name: created.name, scope, connection: c.var.connection.profile });
  });

  app.get('/api/team/mcp-tokens', async (c) => {
    const member = c.get('member')!;
    const mine = (await state().tokens.list()).filter(
      (token) => token.person === member.email && token.revokedAt === null,
    );
    return c.json({
      tokens: mine.map((token) => ({ name: token.name, scope: token.scope, connection: token.connection })),
    });
  });

  app.delete('/api/team/mcp-tokens/:name', async (c) => {
    const member = c.get('member')!;
    const name = c.req.param('name');
    const token = (await state().tokens.list()).find(
      (candidate) => candidate.name === name && candidate.revokedAt === null,
    );
    // Another person's token is as unknown as a missing one.
    if (!token || token.person !== member.email)
      throw new HttpError(404, 'not-found', `You have no live MCP token named '${name}'.`);
    await state().tokens.revoke(name);
    return c.json({ revoked: name });
  });

  app.get('/api/team/people', async (c) => {
    if (c.get('member')!.role !== 'admin')
      throw new HttpError(403, 'role', 'Only an admin lists the team.', 'Ask an admin of your Toolrow.');
    const people = await state().team.people();
    return c.json({
      people: people.map((person) => ({
        email: person.email,
        name: person.name,
        role: person.role,
        groups: person.groups,
        checkedAt: person.checkedAt.toISOString(),
      })),
    });
  });

  app.delete('/api/team/people/:email', async (c) => {
    const email = c.req.param('email');
    if (!(await state().team.person(email)))
      throw new HttpError(
        404,
        'not-found',
        `${email} is not a member of this team (or was removed already).`,
      );
    const member = c.get('member')!;
    const removal = await state().team.remove(email, `removed by ${member.email}`);
    await state().audit.record({
      tool: 'removeTeamMember',
      input: { email },
      decision: 'approved',
      decidedBy: 'user',
      profile: c.var.connection.profile,
      person: member.email,
      detail: `${member.email} removed ${email}: ${removal.sessions} sessions, ${removal.personalTokens} personal tokens, ${removal.mcpTokens} MCP tokens and ${removal.oauthGrants} OAuth grants ended.`,
    });
    return c.json({ removed: email, ...removal });
  });

  return app;
}
