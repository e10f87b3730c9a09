// Figures the docs give of the rows ("its 38 tools", "the other 11"), written by the generator
// between markers and checked by --check like any generated file, so a new row never leaves a
// document saying something untrue:
//
//   Its <!-- rows:tools -->38<!-- /rows --> tools …
import type { Emitter } from './emitters/index.ts';
import type { Row } from './row-model.ts';

/** Where the docs that carry figures live (a missing one is skipped). */
export const DOCS_WITH_FIGURES = [
  'README.md',
  'CONTRIBUTING.md',
  'packages/agent/README.md',
  'packages/catalog/README.md',
  'packages/declarations/README.md',
  'packages/mcp-server/README.md',
  'packages/tools/README.md',
  'apps/cli/README.md',
] as const;

/** The table of generated files, one line each, from the emitters' own words. */
export function generatedFilesTable(emitters: readonly Emitter[]): string {
  return [
    '',
    '| generated file | what it holds |',
    '|---|---|',
    ...emitters.map((emitter) => `| \`${emitter.path}\` | ${emitter.what} |`),
    '',
  ].join('\n');
}

/** Each figure a marker may name, from the rows (and the emitters, for the table of files). */
export function docFigures(
  rows: readonly Row[],
  emitters: readonly Emitter[] = [],
): Record<string, number | string> {
  const count = (keep: (row: Row) => boolean) => rows.filter(keep).length;
  return {
    tools: rows.length,
    inline: count((row) => row.visibility === 'inline'),
    discoverable: count((row) => row.visibility === 'discoverable'),
    silent: count((row) => row.tier === 'silent'),
    gated: count((row) => row.tier === 'gated'),
    'mcp-excluded': count((row) => row.mcp === 'excluded'),
    'generated-files': generatedFilesTable(emitters),
  };
}

// A figure inline, or a block (the table of generated files) spanning lines.
const MARKER = /<!-- rows:([a-z-]+) -->([\s\S]*?)<!-- \/rows -->/g;

/**
 * The text with every marker's figure as the rows give it; throws naming the document and the
 * figure when a marker names none the rows have.
 */
export function withFigures(
  path: string,
  text: string,
  figures: Readonly<Record<string, number | string>>,
): string {
  return text.replace(MARKER, (_whole, name: string) => {
    const value = figures[name];
    if (value === undefined)
      throw new Error(
        `${path}: <!-- rows:${name} --> names no figure of the rows; use one of ${Object.keys(figures).join(', ')}.`,
      );
    return `<!-- rows:${name} -->${value}<!-- /rows -->`;
  });
}
