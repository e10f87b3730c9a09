// @toolrow/postgres: the PostgreSQL engine — embedded PGlite by default, a server through pg — behind
// @toolrow/datasource's engine-neutral interface. See README.md.
export type {
  ConnectionConfig,
  CursorOptions,
  Database,
  OpenDatabaseOptions,
  Queryable,
  QueryResult,
  TextLines,
  TextLinesOptions,
  TransactionOptions,
} from './database.ts';
export { dumpEmbeddedDatabase } from './drivers/dump.ts';
export { openDatabase, resolveConnectionConfig } from './drivers/open.ts';
export { describeUrl as describePostgresUrl, parsePostgresUrl } from './drivers/postgres-url.ts';
export { postgresEngine } from './engine.ts';
export { createExportEngine } from './export-engine.ts';
export {
  checkValue as checkPostgresValue,
  compileFilter,
  compileSort,
  filterColumns,
  validateFilter,
} from './filters.ts';
export { openDataSource } from './open-data-source.ts';
export {
  describeReadLayers,
  hardeningSql,
  READER_ROLE,
  type ReaderRoleState,
  readerRoleSql,
  userSchemas,
} from './reader-role.ts';
export { createRowReader, normalizeKey } from './row-reader.ts';
export { createSchemaCache, loadSchema } from './schema-load.ts';
export { seedSampleShop } from './seed.ts';
export { quoteIdent, quoteLiteral, quoteQualified } from './sql.ts';
export {
  checkReadOnlySql,
  isSideEffectFunction,
  loadSqlParser,
  type ReadOnlyStatement,
  type SqlGuardCode,
  SqlGuardError,
  type SqlGuardOptions,
} from './sql-guard.ts';
export {
  isSqlSource,
  type OpenDataSourceOptions,
  type SqlDataSource,
  sqlDatabaseOf,
} from './sql-source.ts';
export { checkAgainstSchema, checkPostgresStatement } from './statement-check.ts';
