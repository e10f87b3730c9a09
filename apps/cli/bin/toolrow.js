#!/usr/bin/env node
// Starts the toolrow CLI. Workspace packages are TypeScript sources, loaded through the
// '@toolrow/source' export condition and Node's type stripping, so nothing needs a build first.
// Node >= 22 is required; on an older Node this re-runs itself on the Node 24 that ./run installs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major >= 22) {
  const { enableCompileCache, registerHooks } = await import('node:module');
  // Caches the compiled (and, on Node 24, type-stripped) sources across runs: most of a short
  // command's start is compiling them (apps/cli/bench/cold-start.ts). Off with NODE_DISABLE_COMPILE_CACHE=1.
  enableCompileCache?.();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const conditions = context.conditions.includes('@toolrow/source')
        ? context.conditions
        : ['@toolrow/source', ...context.conditions];
      return nextResolve(specifier, { ...context, conditions });
    },
  });
  // Everything Toolrow writes (data dir, databases, tokens, exports, eval reports) is its user's
  // alone: files 0600, folders 0700, whatever the shell's umask.
  process.umask(0o077);
  // `mcp --stdio`: the client's initialize is answered before the rest of the CLI loads.
  const early = await import('../src/early-stdio.js');
  await early.startEarlyStdio(process.argv.slice(2));
  const { run } = await import('../src/main.ts');
  process.exitCode = await run(process.argv.slice(2));
  await early.closeUntakenEarlyStdio();
} else {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const node = fileURLToPath(
    new URL(`../../../.cache/node/node_modules/node-linux-${arch}/bin/node`, import.meta.url),
  );
  if (!existsSync(node)) {
    console.error(
      `toolrow needs Node >= 22 and this is Node ${process.versions.node}.\n` +
        'Run it through the repository wrapper, which installs Node 24 from the npm registry once: ./run npx toolrow …',
    );
    process.exit(1);
  }
  const result = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
