// @toolrow/datasource: the user's data behind one engine-neutral interface (src/core), and the
// PostgreSQL dialect's engines (src/postgres: embedded PGlite, or a server through pg). See README.md.
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
} from './core/changes.ts';
export type { DataSource } from './core/data-source.ts';
export {
  DataDirHeldError,
  type DataDirOwner,
  DataSourceError,
  type DataSourceErrorCode,
  isDataSourceError,
  UnknownNameError,
} from './core/errors.ts';
export type {
  ExportEngine,
  ExportEngineOptions,
  ExportFormat,
  ExportJob,
  ExportJobStore,
  ExportRequest,
  ExportSource,
  ExportState,
} from './core/exports.ts';
export { DEFAULT_EXPORT_TIME_LIMIT_MS, EXPORT_FORMATS } from './core/exports.ts';
export * from './core/filter-types.ts';
export { didYouMean, nearestNames, unknownNameHint } from './core/names.ts';
export { ensurePrivateDir } from './core/private-dir.ts';
export type { QueryDialect, QueryPlan, QueryRunner } from './core/queries.ts';
export type { ReadPriority, TableRead } from './core/reads.ts';
export type { RowAccess, RowPage, RowReader, RowReadOptions, SelectRowsOptions } from './core/rows.ts';
export {
  checkSeedOrders,
  generateSampleShop,
  type SampleColumns,
  sampleCounts,
} from './core/sample-shop.ts';
export {
  type ColumnMatch,
  createSnapshotCache,
  type RefreshOptions,
  type SchemaCache,
} from './core/schema-cache.ts';
export { resolveColumnIn, resolveTableIn, splitQualifiedName } from './core/schema-names.ts';
export type * from './core/schema-types.ts';
export * from './core/seed-types.ts';
export {
  type Actor,
  APP_SCHEMA,
  DEFAULT_PROFILE,
  type Engine,
  isActor,
  type Row,
  type RowKey,
  type SqlEngine,
  toolEngineOf,
} from './core/types.ts';
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
} from './postgres/database.ts';
export { dumpEmbeddedDatabase } from './postgres/drivers/dump.ts';
export { openDatabase, resolveConnectionConfig } from './postgres/drivers/open.ts';
export { describeUrl as describePostgresUrl, parsePostgresUrl } from './postgres/drivers/postgres-url.ts';
export {
  createExportEngine,
  createMemoryExportJobStore,
  resolveExportPath,
} from './postgres/export-engine.ts';
export { compileFilter, compileSort, filterColumns, validateFilter } from './postgres/filters.ts';
export { openDataSource } from './postgres/open-data-source.ts';
export {
  describeReadLayers,
  hardeningSql,
  READER_ROLE,
  type ReaderRoleState,
  type ReaderRoleStatus,
  type ReadLayer,
  readerRoleSql,
  userSchemas,
} from './postgres/reader-role.ts';
export { createRowReader, normalizeKey } from './postgres/row-reader.ts';
export { createSchemaCache, loadSchema } from './postgres/schema-load.ts';
export { seedSampleShop } from './postgres/seed.ts';
export { quoteIdent, quoteLiteral, quoteQualified } from './postgres/sql.ts';
export {
  isSqlSource,
  type OpenDataSourceOptions,
  type SqlDataSource,
  sqlDatabaseOf,
} from './postgres/sql-source.ts';
