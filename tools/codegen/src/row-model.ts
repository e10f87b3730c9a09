// The generator's own view of a row. It mirrors the row type in the declarations package but is
// read from the AST, so the generator never has to import (and run) the declaration file.

export const TOOL_VISIBILITIES = ['inline', 'discoverable'] as const;
export const TOOL_TIERS = ['silent', 'gated', 'loop'] as const;
export const TOOL_ACCESSES = ['read', 'propose', 'open', 'stage', 'export'] as const;
export const MCP_EXPOSURES = ['readonly', 'staged', 'full', 'excluded'] as const;
export const TOOL_WRITES = ['none', 'ui', 'staging', 'files'] as const;
export const STAGED_OPERATIONS = ['insert', 'update', 'delete'] as const;
/** What an engine can do that a row may need (the declarations' EngineFeature); a row without `needs` is served by every engine. */
export const ENGINE_FEATURES = [
  'foreignKeys',
  'stagedWrites',
  'exports',
  'cancel',
  'seed',
  'largeShop',
  'readerRoles',
  'typedValues',
] as const;

export type Visibility = (typeof TOOL_VISIBILITIES)[number];
export type Tier = (typeof TOOL_TIERS)[number];
export type Access = (typeof TOOL_ACCESSES)[number];
export type McpExposure = (typeof MCP_EXPOSURES)[number];
export type Writes = (typeof TOOL_WRITES)[number];
export type StagedOperation = (typeof STAGED_OPERATIONS)[number];
export type EngineFeature = (typeof ENGINE_FEATURES)[number];
/** The languages a row's `words` are given in besides English (its keywords), as BCP 47 tags. */
export const WORD_LANGUAGES = [
  'zh-Hans',
  'zh-Hant',
  'ja',
  'ko',
  'es',
  'pt',
  'fr',
  'de',
  'ru',
  'uk',
  'it',
  'nl',
  'pl',
  'tr',
  'id',
  'vi',
  'ar',
  'hi',
  'th',
] as const;
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
