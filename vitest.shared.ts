import { basename } from 'node:path';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineProject } from 'vitest/config';

/** Workspace packages resolve to their TypeScript sources through this export condition. */
export const SOURCE_CONDITION = '@toolrow/source';

/**
 * The vitest project config every package uses: its folder name is its project name.
 * Timeouts only catch hangs: real databases, child processes and Chromium share two cores in CI,
 * where a step that takes 100 ms alone can take seconds. Speed is measured in benchmarks.
 */
export function toolrowProject(dir: string, overrides: { testTimeout?: number; environment?: 'node' } = {}) {
  return defineProject({
    resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
    // Not vite's 'module' condition: dependencies resolve as Node resolves them in production (the
    // AWS SDK's 'module' build has extensionless imports that only a bundler can follow).
    ssr: {
      resolve: {
        conditions: [
          SOURCE_CONDITION,
          ...defaultServerConditions.filter((condition) => condition !== 'module'),
        ],
      },
    },
    test: {
      name: basename(dir),
      root: dir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 60_000,
      hookTimeout: 120_000,
      expect: { poll: { timeout: 20_000, interval: 50 } },
      environment: overrides.environment ?? 'node',
      // TOOLROW_TEST_NODE_FLAGS='--liftoff-only' keeps the workers' wasm on V8's baseline compiler:
      // about 20% less CPU for the same results. Not the default: the one CI run with it had a
      // browser test time out, which the runs without it did not.
      execArgv: (process.env.TOOLROW_TEST_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    },
  });
}
