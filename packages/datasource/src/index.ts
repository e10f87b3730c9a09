// @toolrow/datasource: the user's data, in the Postgres dialect (embedded PGlite or a server
// through pg): connections, schema cache, rows, read-only queries, exports, commits. See README.md.
export type {
  ApplyOptions,
  ApplyResult,
  ChangeKind,
  ChangeToApply,
  ChangeWriter,
  StagingConflict,
  TransactionStatus,
  WriterInfo,
} from './changes.ts';
export type {
  ConnectionConfig,
  CursorOptions,
  Database,
  FieldInfo,
  OpenDatabaseOptions,
  Queryable,
  QueryResult,
  ReadOnlyOptions,
  ReadQueryOptions,
  ReadQueryResult,
  TextLines,
  TextLinesOptions,
  TransactionOptions,
} from './database.ts';
export type { DataSource, OpenDataSourceOptions } from './datasource.ts';
export { openDataSource } from './datasource-impl.ts';
export { dumpEmbeddedDatabase } from './engines/dump.ts';
export { openDatabase, resolveConnectionConfig } from './engines/open.ts';
export { describeUrl as describePostgresUrl, parsePostgresUrl } from './engines/postgres.ts';
export { DataSourceError, type DataSourceErrorCode, isDataSourceError, UnknownNameError } from './errors.ts';
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
export { createExportEngine, createMemoryExportJobStore, resolveExportPath } from './exports-impl.ts';
export * from './filter-types.ts';
export { compileFilter, compileSort, filterColumns, validateFilter } from './filters.ts';
export { ensurePrivateDir } from './private-dir.ts';
export {
  describeReadLayers,
  hardeningSql,
  READER_ROLE,
  type ReaderRoleState,
  type ReaderRoleStatus,
  type ReadLayer,
  readerRoleSql,
  userSchemas,
} from './reader-role.ts';
export type { RowPage, RowReader, SelectRowsOptions } from './rows.ts';
export { createRowReader, normalizeKey } from './rows-impl.ts';
export type { ColumnMatch, RefreshOptions, SchemaCache } from './schema-cache.ts';
export { createSchemaCache, loadSchema } from './schema-load.ts';
export { resolveColumnIn, resolveTableIn, splitQualifiedName } from './schema-names.ts';
export type * from './schema-types.ts';
export { sampleCounts, seedSampleShop } from './seed.ts';
export * from './seed-types.ts';
export { didYouMean, nearestNames, quoteIdent, quoteLiteral, quoteQualified } from './sql.ts';
export {
  type Actor,
  APP_SCHEMA,
  DEFAULT_PROFILE,
  type Engine,
  isActor,
  type Row,
  type RowKey,
} from './types.ts';
