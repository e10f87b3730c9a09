import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_ROWS } from '@toolrow/catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDesktop } from './build.ts';

// The production build itself; that it runs in a browser is checked in apps/server (Chromium).
describe('the production bundle', () => {
  let dir: string;
  let js: string;
  let html: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-desktop-'));
    await buildDesktop({ quiet: true, outDir: dir });
    const assets = await readdir(join(dir, 'assets'));
    const scripts = assets.filter((name) => name.endsWith('.js'));
    js = (await Promise.all(scripts.map((name) => readFile(join(dir, 'assets', name), 'utf8')))).join('\n');
    html = await readFile(join(dir, 'index.html'), 'utf8');
  }, 120_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('carries every row of the catalog (tier and access badges come from them)', () => {
    const quoted = (name: string) => ['"', "'", '`'].some((quote) => js.includes(`${quote}${name}${quote}`));
    const missing = CATALOG_ROWS.filter((row) => !quoted(row.name));
    expect(missing.map((row) => row.name)).toEqual([]);
    for (const row of CATALOG_ROWS.filter((r) => r.description.length > 40).slice(0, 5)) {
      expect(js).toContain(row.description.slice(0, 40));
    }
  });

  it('imports nothing from Node', () => {
    expect(js).not.toMatch(/from\s*["']node:/);
    expect(js).not.toMatch(/require\(["'](node:)?(fs|path|child_process|crypto|module)["']\)/);
  });

  it('is one module script and a stylesheet referenced from index.html', () => {
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" crossorigin href="\/assets\/index-[\w-]+\.css">/);
  });
});
