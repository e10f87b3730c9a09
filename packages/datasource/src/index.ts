// @toolrow/datasource: the contract every engine implements — its types and errors. The runtime
// engines share (the export job's life, filter checks, the sample shop, the private data directory)
// is @toolrow/datasource-utils beside it. The engines are packages of their own. See README.md.
export type {
  ApplyOptions,
  ApplyResult,
  ChangeKind,
  ChangeProtection,
  ChangeToApply,
  ChangeWriter,
  CommitRecord,
  StagingConflict,
  TransactionStatus,
  WriterInfo,
} from './changes.ts';
export { conflictReason } from './changes.ts';
export type { DataSource } from './data-source.ts';
export type {
  EngineCache,
  EngineDescriptor,
  EngineDriver,
  EngineFeature,
  Env,
  OpenEngineOptions,
  ParsedConnectionUrl,
  ReadLayerSetup,
  ReadLayerSetupOptions,
} from './engine.ts';
export {
  contractProblems,
  createEngineRegistry,
  type EngineRegistry,
  openChecked,
} from './engine-registry.ts';
export {
  abortedError,
  DataDirHeldError,
  type DataDirOwner,
  DataSourceError,
  type DataSourceErrorCode,
  isDataSourceError,
  ReadBoundError,
  type StaleColumn,
  StaleEditError,
  UnknownNameError,
} from './errors.ts';
export type {
  ExportEngine,
  ExportEngineOptions,
  ExportFormat,
  ExportJob,
  ExportJobStore,
  ExportRequest,
  ExportSource,
  ExportState,
} from './exports.ts';
export { DEFAULT_EXPORT_TIME_LIMIT_MS, EXPORT_FORMATS } from './exports.ts';
export {
  type DataSourceWith,
  FEATURE_MEMBERS,
  type FeatureMember,
  featureOf,
  hasFeature,
} from './features.ts';
export * from './filter-types.ts';
export { didYouMean, editDistance, nearestNames, unknownNameHint } from './names.ts';
export { isNumberText, NUMBER_TEXT } from './numbers.ts';
export type {
  CheckedStatement,
  QueryLanguage,
  QueryPlan,
  QueryRunner,
  StatementAdvice,
  StatementCheckOptions,
} from './queries.ts';
export { PLAIN_STATEMENT_ADVICE } from './queries.ts';
export type { ReaderRoleState, ReaderRoleStatus, ReadLayer } from './read-layers.ts';
export type {
  FieldInfo,
  ReadOnlyOptions,
  ReadPriority,
  ReadQueryOptions,
  ReadQueryResult,
  TableRead,
} from './reads.ts';
export type { RowAccess, RowPage, RowReader, RowReadOptions, SelectRowsOptions } from './rows.ts';
export {
  type ColumnMatch,
  createSnapshotCache,
  findColumnsIn,
  type RefreshOptions,
  type SchemaCache,
} from './schema-cache.ts';
export { resolveColumnIn, resolveTableIn, splitQualifiedName } from './schema-names.ts';
export type * from './schema-types.ts';
export * from './seed-types.ts';
export {
  type Actor,
  APP_SCHEMA,
  DEFAULT_PROFILE,
  isActor,
  type Row,
  type RowKey,
} from './types.ts';
