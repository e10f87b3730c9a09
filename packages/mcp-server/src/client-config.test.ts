import { describe, expect, it } from 'vitest';
import { renderClientConfig, tokenPlaceholder } from './client-config.ts';
import { MCP_SCOPES } from './generated/mcp-scopes.ts';
import { parseScope } from './scopes.ts';

describe('renderClientConfig', () => {
  it('renders an HTTP entry with the bearer token, as pasteable JSON', () => {
    const text = renderClientConfig({
      kind: 'http',
      url: new URL('http://127.0.0.1:7337/mcp'),
      token: 'trw_secret',
    });
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        toolrow: {
          type: 'http',
          url: 'http://127.0.0.1:7337/mcp',
          headers: { Authorization: 'Bearer trw_secret' },
        },
      },
    });
  });

  it('without a token, the header says how to make one for the scope', () => {
    const config = JSON.parse(
      renderClientConfig({ kind: 'http', url: 'http://127.0.0.1:1/mcp', scope: 'tables:staged' }),
    );
    expect(config.mcpServers.toolrow.headers.Authorization).toBe(
      `Bearer ${tokenPlaceholder('tables:staged')}`,
    );
    expect(tokenPlaceholder('tables:staged')).toContain('toolrow mcp token create --scope tables:staged');
  });

  it('renders a stdio entry whose args the CLI accepts, for every scope', () => {
    for (const scope of MCP_SCOPES) {
      const entry = JSON.parse(
        renderClientConfig({
          kind: 'stdio',
          scope,
          env: { TOOLROW_DATA_DIR: '/data' },
          token: 'trw_x',
          serverName: 'shop',
        }),
      ).mcpServers.shop;
      expect(entry).toEqual({
        type: 'stdio',
        command: 'npx',
        args: ['toolrow', 'mcp', '--stdio', '--scope', scope],
        env: { TOOLROW_DATA_DIR: '/data', TOOLROW_MCP_TOKEN: 'trw_x' },
      });
      expect(parseScope(entry.args.at(-1))).toBe(scope);
    }
  });

  it('uses the given command and leaves env out when there is none', () => {
    const entry = JSON.parse(
      renderClientConfig({
        kind: 'stdio',
        scope: 'tables:readonly',
        command: ['node', '/repo/apps/cli/bin/toolrow.js'],
      }),
    ).mcpServers.toolrow;
    expect(entry.command).toBe('node');
    expect(entry.args).toEqual([
      '/repo/apps/cli/bin/toolrow.js',
      'mcp',
      '--stdio',
      '--scope',
      'tables:readonly',
    ]);
    expect(entry).not.toHaveProperty('env');
  });
});
