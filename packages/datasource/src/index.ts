// @toolrow/datasource: the Postgres-dialect data layer. See README.md.
export type { AppState, ListOptions } from './app-state.ts';
export {
  CONVERSATION_ID_PATTERN,
  conversationTitle,
  createAppState,
  digestInput,
  hashToken,
} from './app-state.ts';
export type { AppStateOptions } from './app-state-impl.ts';
export * from './app-types.ts';
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
  TransactionOptions,
} from './database.ts';
export { openDatabase, resolveConnectionConfig } from './database.ts';
export type { DataSource, OpenDataSourceOptions } from './datasource.ts';
export { openDataSource } from './datasource.ts';
export { DataSourceError, type DataSourceErrorCode, isDataSourceError, UnknownNameError } from './errors.ts';
export type { ExportEngine, ExportRequest, ExportSource } from './exports.ts';
export { createExportEngine, resolveExportPath } from './exports.ts';
export * from './filter-types.ts';
export { compileFilter, compileSort, filterColumns, validateFilter } from './filters.ts';
export { MIGRATIONS, type Migration, migrate } from './migrations.ts';
export type { RowPage, RowReader, SelectRowsOptions } from './rows.ts';
export { createRowReader, normalizeKey } from './rows.ts';
export type { ColumnMatch, RefreshOptions, SchemaCache } from './schema-cache.ts';
export { createSchemaCache, loadSchema } from './schema-cache.ts';
export { resolveColumnIn, resolveTableIn, splitQualifiedName } from './schema-names.ts';
export type * from './schema-types.ts';
export { sampleCounts, seedSampleShop } from './seed.ts';
export * from './seed-types.ts';
export { didYouMean, nearestNames, quoteIdent, quoteLiteral, quoteQualified } from './sql.ts';
export type { Staging } from './staging.ts';
export { createStaging } from './staging.ts';
export type * from './staging-types.ts';
export { type Actor, type Engine, isActor, type Row, type RowKey } from './types.ts';
