import { toolrowProject } from '../../vitest.shared.ts';

// Browser and real-process tests wait on Chromium, PGlite and child processes; on a busy 2-core CI
// machine a step can take several seconds.
export default toolrowProject(import.meta.dirname, { testTimeout: 60_000 });
