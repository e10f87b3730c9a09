import { defineConfig } from 'vitest/config';

// `npm run test:vitest` runs every package in one vitest process; `npm test` runs them through turbo.
export default defineConfig({
  test: { projects: ['packages/*', 'tools/*', 'apps/*'] },
});
