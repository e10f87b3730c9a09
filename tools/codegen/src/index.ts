export { type DerivedCatalog, deriveCatalog, MCP_SCOPES } from './derive.ts';
export { EMITTERS, type EmitInput, type Emitter } from './emitters/index.ts';
export {
  type FileReport,
  type FileStatus,
  type GenerateOptions,
  type GenerateResult,
  generate,
  loadRows,
  renderFiles,
} from './generate.ts';
export { DECLARATIONS_PATH, GENERATED_HEADER } from './header.ts';
export {
  describeMissingImplementations,
  findMissingImplementations,
  IMMEDIATE_OBJECT,
  type ImplementationReport,
  type MissingImplementation,
  REGISTRY_PATH,
} from './implementations.ts';
export {
  IMPLEMENTATIONS_TYPE,
  type JsonSchema,
  OutputTypeError,
  outputSchemasOf,
  readOutputSchemas,
} from './output-schemas.ts';
export { ROWS_EXPORT_NAME, readRows } from './read-rows.ts';
export { type LocatedRow, type Row, RowError, RowErrors } from './row-model.ts';
export { ROW_RULES, suggest, validateRows } from './validate.ts';
