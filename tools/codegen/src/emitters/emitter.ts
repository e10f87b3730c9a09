import type { DerivedCatalog } from '../derive.ts';
import type { Row } from '../row-model.ts';

export interface EmitInput {
  rows: readonly Row[];
  catalog: DerivedCatalog;
  header: string;
}

/** One generated file: where it goes (relative to the repository root) and its full text. */
export interface Emitter {
  id: string;
  path: string;
  emit(input: EmitInput): string;
}
