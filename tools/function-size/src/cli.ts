// `npm run function-size`: lists every function over the bar in the apps and packages, exit 1 if any.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { isCovered, longFunctions, MAX_FUNCTION_LINES } from './index.ts';

const root = join(import.meta.dirname, '../../..');
const files = execFileSync(
  'git',
  ['ls-files', '-z', '--cached', '--others', '--exclude-standard', 'apps', 'packages'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\0')
  .filter(Boolean)
  .map((path) => join(root, path))
  .filter(isCovered);
const long = longFunctions(root, files);
for (const each of long)
  console.error(
    `${each.file}:${each.line}: ${each.name} is ${each.lines} lines (the bar is ${MAX_FUNCTION_LINES}): split it by what it does.`,
  );
console.log(
  long.length === 0
    ? `No function over ${MAX_FUNCTION_LINES} lines in ${files.length} files of apps/ and packages/.`
    : `${long.length} function${long.length === 1 ? '' : 's'} over ${MAX_FUNCTION_LINES} lines.`,
);
process.exitCode = long.length === 0 ? 0 : 1;
