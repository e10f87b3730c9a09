import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_VERSION } from './server.ts';

describe('the server version', () => {
  it("is the package's own version, so `changeset version` reaches what clients see", () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(SERVER_VERSION).toBe(manifest.version);
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
