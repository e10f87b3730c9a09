import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// The '@toolrow/source' condition makes @toolrow/declarations and @toolrow/catalog resolve to their
// TypeScript sources, so the rows are bundled as they are written (no build of those packages first).
const SERVER = `http://127.0.0.1:${process.env.TOOLROW_PORT ?? '4747'}`;

// The running app's token, read from <data dir>/app.json on each request (it changes on every start
// of `npm start`, which runs at the repo root), or TOOLROW_APP_TOKEN.
function appToken(): string | undefined {
  if (process.env.TOOLROW_APP_TOKEN) return process.env.TOOLROW_APP_TOKEN;
  const dataDir = resolve(import.meta.dirname, '../..', process.env.TOOLROW_DATA_DIR || '.toolrow');
  try {
    return (JSON.parse(readFileSync(resolve(dataDir, 'app.json'), 'utf8')) as { token?: string }).token;
  } catch {
    return undefined;
  }
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  resolve: { conditions: ['@toolrow/source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    host: '127.0.0.1',
    // `npm run dev -w @toolrow/desktop` next to a running `npm start`: API calls go to the server,
    // looking like they come from its own origin (its guard refuses writes from other origins),
    // with the app's token (every /api route needs it).
    proxy: {
      '/api': {
        target: SERVER,
        changeOrigin: true,
        headers: { origin: SERVER },
        configure: (proxy) =>
          proxy.on('proxyReq', (request) => {
            const token = appToken();
            if (token) request.setHeader('authorization', `Bearer ${token}`);
          }),
      },
    },
  },
});
