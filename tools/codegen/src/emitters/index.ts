import { needsEmitter, tiersEmitter, toolNamesEmitter } from './catalog.ts';
import type { Emitter } from './emitter.ts';
import { mcpScopesEmitter } from './mcp-scopes.ts';
import { outputSchemasEmitter } from './output-schemas.ts';
import { searchTermsEmitter } from './search-terms.ts';
import { writeScopesEmitter } from './write-scopes.ts';

export type { EmitInput, Emitter } from './emitter.ts';

/** Every generated file, in the order they are written. Add an emitter here to add a file. */
export const EMITTERS: readonly Emitter[] = [
  toolNamesEmitter,
  tiersEmitter,
  needsEmitter,
  mcpScopesEmitter,
  writeScopesEmitter,
  outputSchemasEmitter,
  searchTermsEmitter,
];
