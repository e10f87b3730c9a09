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
    ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
    test: {
      name: basename(dir),
      root: dir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 60_000,
      hookTimeout: 120_000,
      expect: { poll: { timeout: 20_000, interval: 50 } },
      environment: overrides.environment ?? 'node',
      // Test workers open dozens of short-lived PGlite instances; V8's optimising compiler spends
      // more CPU on them than the tests do (about 20% less CPU without it, same results). Commands
      // the tests spawn run with Node's defaults, as users run them. TOOLROW_TEST_NODE_FLAGS='' restores them here.
      execArgv: (process.env.TOOLROW_TEST_NODE_FLAGS ?? '--liftoff-only').split(' ').filter(Boolean),
    },
  });
}
