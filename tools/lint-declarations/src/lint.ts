import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type ImportFinding, KIND_LABELS, scanImports } from './scan.ts';

/** The folder whose every source file must be import-free. */
export const DECLARATIONS_SOURCE_DIR = 'packages/declarations/src';

/** Why the rule exists, printed with every finding so the person who hits it learns it once. */
export const WHY_NO_IMPORTS =
  'The declaration file must have zero imports: it is bundled into the browser UI and the server, and one import ' +
  'can pull a Node-only dependency (through some tool implementation) into the browser bundle, where the app ' +
  'crashes at module load. Neither the type checker nor the unit tests catch that, so this lint reads the file as ' +
  'text. Keep the rows plain literals; put code that needs a dependency in @toolrow/catalog or @toolrow/tools.';

export interface FileFinding extends ImportFinding {
  file: string;
}

/** The non-test TypeScript files in the declarations package, relative to `root`. */
export function declarationFiles(root: string): string[] {
  const directory = join(root, DECLARATIONS_SOURCE_DIR);
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(c|m)?tsx?$/.test(name) && !/\.test\.(c|m)?tsx?$/.test(name))
    .map((name) => join(DECLARATIONS_SOURCE_DIR, name))
    .sort();
}

export function lintFiles(root: string, files: readonly string[]): FileFinding[] {
  return files.flatMap((file) => {
    const text = readFileSync(resolve(root, file), 'utf8');
    return scanImports(text).map((finding) => ({ ...finding, file: relative(root, resolve(root, file)) }));
  });
}

export function formatFinding(finding: FileFinding): string {
  return `${finding.file}:${finding.line}: ${KIND_LABELS[finding.kind]} is not allowed here: ${finding.excerpt}`;
}
