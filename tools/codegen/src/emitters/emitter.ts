import type { DerivedCatalog } from '../derive.ts';
import type { JsonSchema } from '../output-schemas.ts';
import type { Row } from '../row-model.ts';

export interface EmitInput {
  rows: readonly Row[];
  catalog: DerivedCatalog;
  header: string;
  /** Each implemented tool's output schema, when the root has the tools registry to read them from. */
  outputSchemas?: Readonly<Record<string, JsonSchema>>;
}

/** One generated file: where it goes (relative to the repository root) and its full text. */
export interface Emitter {
  id: string;
  path: string;
  /** What the file holds, in a line: the docs' table of generated files is made from these. */
  what: string;
  /** The file's text; undefined when its input is missing (the file is then not produced). */
  emit(input: EmitInput): string | undefined;
}
