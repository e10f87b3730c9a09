// `npm run gen` and `npm run gen:check`. A thin shell over generate(): parse flags, print, exit.

import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generate } from './generate.ts';
import { describeMissingImplementations } from './implementations.ts';
import { RowErrors } from './row-model.ts';

const usage = 'Usage: node tools/codegen/src/cli.ts [--check] [--root <dir>]';

/** Why a file is stale, in words: what changed since it was generated. */
function staleReason(file: { path: string; status: string }): string {
  if (file.status === 'orphan') return 'no emitter produces it';
  if (file.path.endsWith('output-schemas.ts')) return "an implementation's return type (or a row) changed";
  if (file.path.endsWith('.md')) return 'a figure of the rows changed';
  return 'the rows changed';
}

function main(argv: string[]): number {
  let flags: { check?: boolean; root?: string; help?: boolean };
  try {
    flags = parseArgs({
      args: argv,
      options: {
        check: { type: 'boolean' },
        root: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (flags.help) {
    console.log(
      `${usage}\n\nRegenerates every file derived from packages/declarations/src/tools.ts.\n--check writes nothing, lists stale files and exits 1 if any.`,
    );
    return 0;
  }
  const root = flags.root ?? fileURLToPath(new URL('../../..', import.meta.url));
  try {
    const result = generate({ root, check: flags.check ?? false });
    const nextStep = result.implementations ? describeMissingImplementations(result.implementations) : '';
    for (const warning of result.warnings) console.error(`warning: ${warning}`);
    if (flags.check) {
      if (result.stale.length > 0) {
        console.error(`Generated files are out of date with the tool rows (${result.stale.length}):`);
        for (const file of result.stale) console.error(`  ${file.path}  (${staleReason(file)})`);
        console.error('Run `npm run gen` and commit the result.');
        return 1;
      }
      console.log(`Generated files are up to date with ${result.rows.length} tool rows.`);
      if (nextStep) console.log(nextStep);
      return 0;
    }
    for (const left of result.leftovers) {
      const what = left.renamedTo
        ? `'${left.name}' is now '${left.renamedTo}' (its formerly): remembered grants and the audit history follow it.`
        : `'${left.name}' left the rows.`;
      console.log(
        left.files.length > 0
          ? `${what} These files still name it; edit them (its implementation, its registry entry, tests, docs):\n${left.files.map((file) => `  ${file}`).join('\n')}`
          : `${what} No file names it any more.`,
      );
    }
    const changed = result.files.filter((file) => file.status !== 'unchanged');
    for (const file of changed) console.log(`${file.status.padEnd(8)} ${file.path}`);
    console.log(
      `${result.rows.length} rows; ${changed.length} of ${result.files.length} generated files changed.`,
    );
    if (nextStep) console.log(nextStep);
    return 0;
  } catch (error) {
    if (error instanceof RowErrors) {
      console.error(error.message);
      console.error('Nothing was written.');
      return 1;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
