// The generator's own view of a row. It mirrors the row type in the declarations package but is
// read from the AST, so a row the generator refuses is named by file:line; the vocabularies a
// row draws on (engine features, languages) are the declarations' own lists.

export const TOOL_VISIBILITIES = ['inline', 'discoverable'] as const;
export const TOOL_TIERS = ['silent', 'gated', 'loop'] as const;
export const TOOL_ACCESSES = ['read', 'propose', 'open', 'stage', 'export'] as const;
export const MCP_EXPOSURES = ['readonly', 'staged', 'full', 'excluded'] as const;
export const TOOL_WRITES = ['none', 'ui', 'staging', 'files'] as const;
export const STAGED_OPERATIONS = ['insert', 'update', 'delete'] as const;
// What an engine can do that a row may need, and the languages of a row's `words`: the
// declarations' own lists (read, never copied), so a new feature or language needs no edit here.
export { ENGINE_FEATURES, WORD_LANGUAGES } from '@toolrow/declarations';

import type { ENGINE_FEATURES, WORD_LANGUAGES } from '@toolrow/declarations';

export type Visibility = (typeof TOOL_VISIBILITIES)[number];
export type Tier = (typeof TOOL_TIERS)[number];
export type Access = (typeof TOOL_ACCESSES)[number];
export type McpExposure = (typeof MCP_EXPOSURES)[number];
export type Writes = (typeof TOOL_WRITES)[number];
export type StagedOperation = (typeof STAGED_OPERATIONS)[number];
export type EngineFeature = (typeof ENGINE_FEATURES)[number];
export type WordLanguage = (typeof WORD_LANGUAGES)[number];

export interface Row {
  name: string;
  description: string;
  keywords: string[];
  visibility: Visibility;
  tier: Tier;
  access?: Access;
  twin?: string;
  stages?: StagedOperation;
  mcp: McpExposure;
  writes: Writes;
  needs?: EngineFeature[];
  words?: Partial<Record<WordLanguage, string[]>>;
  /** Keyed by an engine's id (any engine; one the apps do not install is simply never matched). */
  engineWords?: Record<string, string[]>;
  /** The act itself in any language (change, ändern, изменить, 更新 …): weighs more than nouns. */
  verbs?: string[];
  /** The tool's input on the sample shop (the registry test checks it parses). */
  example?: Record<string, unknown>;
  /** Names the tool had before (a rename): grants and audit history carry over. */
  formerly?: string[];
  /** Requests a user types that the tool answers: eval's corpus and the visibility audit run them. */
  asks?: string[];
}

/** Where a row and each of its properties sit in the declaration file, for error messages. */
export interface RowLocation {
  file: string;
  line: number;
  propertyLines: Partial<Record<keyof Row, number>>;
}

export interface LocatedRow {
  row: Row;
  location: RowLocation;
}

/** A problem with the rows, always pointing at file:line. */
export class RowError extends Error {
  readonly file: string;
  readonly line: number;
  readonly detail: string;

  constructor(file: string, line: number, detail: string) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'RowError';
    this.file = file;
    this.line = line;
    this.detail = detail;
  }
}

/** All the problems found at once, so a user fixes them in one pass. */
export class RowErrors extends Error {
  readonly errors: readonly RowError[];

  constructor(errors: readonly RowError[]) {
    super(
      `${errors.length} problem${errors.length === 1 ? '' : 's'} in the tool rows:\n` +
        errors.map((e) => `  ${e.message}`).join('\n'),
    );
    this.name = 'RowErrors';
    this.errors = errors;
  }
}
