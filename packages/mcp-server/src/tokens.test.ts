import type { DataSource } from '@toolrow/datasource';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveStdioPrincipal } from './stdio.ts';
import { createToken, createTokenVerifier, parseTtl, principalOf } from './tokens.ts';

describe('parseTtl', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['12h', 12 * 3_600_000],
    ['7d', 7 * 86_400_000],
    ['4w', 4 * 604_800_000],
    [' 2D ', 2 * 86_400_000],
    ['never', null],
  ])('%s', (text, ms) => {
    expect(parseTtl(text)).toBe(ms);
  });

  it.each(['', '0d', '-1d', '7', 'd', '1y', '1.5h', 'forever', '7 days'])(
    'refuses %j, naming the forms',
    (text) => {
      expect(() => parseTtl(text)).toThrow(/Use a number with a unit — 30m, 12h, 7d, 4w — or 'never'/);
    },
  );
});

describe.each(testStores())('$name: tokens in the app state', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open();
    ({ source, state } = toolrow);
  });
  afterAll(() => toolrow?.close());

  it('names tokens mcp-<n> by default, skipping taken names, and keeps one live token per name', async () => {
    const first = await createToken(state.tokens, { scope: 'tables:readonly' });
    const second = await createToken(state.tokens, { scope: 'tables:readonly' });
    expect([first.name, second.name]).toEqual(['mcp-1', 'mcp-2']);
    await expect(createToken(state.tokens, { scope: 'tables:full', name: 'mcp-1' })).rejects.toThrow(
      "A token named 'mcp-1' already exists",
    );
    expect(await state.tokens.revoke('mcp-1')).toBe(true);
    const again = await createToken(state.tokens, { scope: 'tables:full', name: 'mcp-1' });
    expect(again.scope).toBe('tables:full');
    expect((await createToken(state.tokens, { scope: 'tables:readonly' })).name).toBe('mcp-3');
  });

  it.each(['', ' spaces ', 'a/b', 'quote"d', '-dash-first', 'x'.repeat(65)])(
    'refuses the name %j',
    async (name) => {
      await expect(createToken(state.tokens, { scope: 'tables:readonly', name })).rejects.toThrow(
        /Bad token name/,
      );
    },
  );

  it('sets the expiry from the lifetime, or none for never', async () => {
    const now = new Date();
    const day = await createToken(state.tokens, {
      scope: 'tables:staged',
      name: 'day',
      ttlMs: 86_400_000,
      now,
    });
    expect(day.expiresAt?.getTime()).toBe(now.getTime() + 86_400_000);
    const forever = await createToken(state.tokens, {
      scope: 'tables:staged',
      name: 'forever',
      ttlMs: null,
    });
    expect(forever.expiresAt).toBeNull();
  });

  it('verifies into AuthInfo carrying the token name and every scope the token implies', async () => {
    const { token } = await createToken(state.tokens, { scope: 'tables:staged', name: 'verify-me' });
    const info = await createTokenVerifier(state.tokens).verifyAccessToken(token);
    expect(info.clientId).toBe('verify-me');
    expect(info.scopes).toEqual(['tables:readonly', 'tables:staged']);
    expect(principalOf(info)).toEqual({ name: 'verify-me', scope: 'tables:staged' });
    expect(info.expiresAt).toBeGreaterThan(Date.now() / 1000);
    await expect(createTokenVerifier(state.tokens).verifyAccessToken(`${token}x`)).rejects.toThrow(
      /Unknown token/,
    );
  });

  it('resolves a stdio principal from --scope, TOOLROW_MCP_SCOPE or the default, and from TOOLROW_MCP_TOKEN', async () => {
    const tokens = state.tokens;
    expect(await resolveStdioPrincipal({ env: {}, tokens })).toEqual({
      name: 'stdio',
      scope: 'tables:readonly',
    });
    expect(await resolveStdioPrincipal({ env: { TOOLROW_MCP_SCOPE: 'staged' }, tokens })).toEqual({
      name: 'stdio',
      scope: 'tables:staged',
    });
    expect(
      await resolveStdioPrincipal({ env: { TOOLROW_MCP_SCOPE: 'staged' }, scope: 'tables:full', tokens }),
    ).toEqual({
      name: 'stdio',
      scope: 'tables:full',
    });
    await expect(resolveStdioPrincipal({ env: { TOOLROW_MCP_SCOPE: 'root' }, tokens })).rejects.toThrow(
      /Unknown MCP scope 'root'/,
    );
    const { token } = await createToken(tokens, { scope: 'tables:staged', name: 'stdio-token' });
    expect(await resolveStdioPrincipal({ env: { TOOLROW_MCP_TOKEN: token }, tokens })).toEqual({
      name: 'stdio-token',
      scope: 'tables:staged',
    });
    // A scope in the environment is a request like --scope: it may narrow the token, never widen it.
    expect(
      await resolveStdioPrincipal({
        env: { TOOLROW_MCP_TOKEN: token, TOOLROW_MCP_SCOPE: 'readonly' },
        tokens,
      }),
    ).toEqual({
      name: 'stdio-token',
      scope: 'tables:readonly',
    });
    await expect(
      resolveStdioPrincipal({ env: { TOOLROW_MCP_TOKEN: token }, scope: 'full', tokens }),
    ).rejects.toThrow('Scope tables:full is wider than the token stdio-token allows (tables:staged)');
  });
});
