// The desktop build at `/`: its files, and index.html for any other path without an extension.
import { existsSync, statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.map': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Files of the build, with index.html for every other path (the app has no client-side routes yet, but a reload must work). */
export async function serveDesktop(root: string, path: string): Promise<Response> {
  const index = join(root, 'index.html');
  if (!existsSync(index)) {
    return new Response(
      `<!doctype html><meta charset="utf-8"><title>Toolrow</title><body style="font:14px system-ui;padding:2em"><h1>The desktop app is not built</h1><p>Run <code>npm start</code> (it builds what is missing) or <code>npm run build -w @toolrow/desktop</code>, then reload.</p><p>The API answers under <code>/api</code>.</p>`,
      { status: 503, headers: { 'content-type': 'text/html; charset=utf-8' } },
    );
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return new Response('Bad path', { status: 400 });
  }
  const file = normalize(join(root, decoded));
  if (existsSync(file) && statSync(file).isFile()) {
    // Resolved for real, so a symlink inside the build cannot lead outside it.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (realFile.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) {
      const immutable = realFile.includes(`${sep}assets${sep}`);
      return new Response(await readFile(realFile), {
        headers: {
          'content-type': MIME[extname(realFile)] ?? 'application/octet-stream',
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        },
      });
    }
    return new Response('Not found', { status: 404 });
  }
  if (extname(decoded)) return new Response('Not found', { status: 404 });
  return new Response(await readFile(index), {
    headers: { 'content-type': MIME['.html']!, 'cache-control': 'no-cache' },
  });
}
