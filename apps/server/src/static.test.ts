import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDesktop } from './static.ts';

// A build folder with a secret file next to it: no request path may reach the secret.
let base: string;
let root: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'toolrow-static-'));
  root = join(base, 'dist');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>');
  await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(base, 'secret.txt'), 'SECRET');
  await symlink(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'));
});

afterAll(() => rm(base, { recursive: true, force: true }));

describe('serveDesktop', () => {
  it('serves files with their type, and index.html for app paths', async () => {
    const js = await serveDesktop(root, '/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const index = await serveDesktop(root, '/');
    expect(await index.text()).toContain('<title>app</title>');
    expect(await (await serveDesktop(root, '/some/app/path')).text()).toContain('<title>app</title>');
    expect((await serveDesktop(root, '/missing.js')).status).toBe(404);
  });

  it.each([
    '/../secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/assets/../../secret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '//secret.txt',
    '/..\\secret.txt',
    '/%00/../secret.txt',
    '/%',
    '/assets/link.txt',
  ])('never serves what lies outside the build: %s', async (path) => {
    const response = await serveDesktop(root, path);
    const body = await response.text();
    expect(body).not.toContain('SECRET');
  });

  it('explains what to do when the app is not built', async () => {
    const response = await serveDesktop(join(base, 'nothing-here'), '/');
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm start');
  });
});
