#!/usr/bin/env node
// Runs a TypeScript entry point on Node >= 22 (which strips types), even when the `node` on PATH
// is older: then it uses the Node 24 that ./run installs into .cache/node. Used by the root npm
// scripts (gen, gen:check, lint) so they also work from a plain shell or a git hook.
//   node scripts/node22.js tools/codegen/src/cli.ts --check
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('Usage: node scripts/node22.js <entry.ts> [args…]');
  process.exit(2);
}
let node = process.execPath;
if (Number(process.versions.node.split('.')[0]) < 22) {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  node = fileURLToPath(new URL(`../.cache/node/node_modules/node-linux-${arch}/bin/node`, import.meta.url));
  if (!existsSync(node)) {
    console.error(
      `This needs Node >= 22 and the node on PATH is ${process.versions.node}. ` +
        'Run it through ./run (it installs Node 24 from the npm registry once), e.g. ./run npm run gen:check',
    );
    process.exit(1);
  }
}
const result = spawnSync(node, ['--conditions=@toolrow/source', entry, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
