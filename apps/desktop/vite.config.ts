import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// The '@toolrow/source' condition makes @toolrow/declarations and @toolrow/catalog resolve to their
// TypeScript sources, so the rows are bundled as they are written (no build of those packages first).
const SERVER = `http://127.0.0.1:${process.env.TOOLROW_PORT ?? '4747'}`;

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
    // looking like they come from its own origin (its guard refuses writes from other origins).
    proxy: { '/api': { target: SERVER, changeOrigin: true, headers: { origin: SERVER } } },
  },
});
