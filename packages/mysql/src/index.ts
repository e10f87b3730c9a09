// @toolrow/mysql: the MySQL and MariaDB engine — a server through mysql2, reads in READ ONLY
// transactions behind a grammar check and a SELECT-only account — behind @toolrow/datasource's interface.
export { createMysqlChangeWriter } from './changes.ts';
export { mysqlEngine } from './engine.ts';
export { MYSQL_FEATURES } from './features.ts';
export { mysqlLanguage } from './queries.ts';
export { checkAccount, READER_ACCOUNT, readerAccountSql } from './reader-account.ts';
export { compileMysqlFilter } from './rows.ts';
export { loadMysqlSchema } from './schema.ts';
export { seedMysqlShop } from './seed.ts';
export { ALL_LAYERS, type Flavor, type MysqlLayers } from './server.ts';
export { type OpenMysqlOptions, openMysqlDataSource } from './source.ts';
export { PIN_SESSION, SESSION_SQL_MODE } from './sql.ts';
export { checkMysqlText, scanMysqlText } from './statement-check.ts';
export { MYSQL_URL_FORMS, type MysqlAddress, mysqlAddressOf, parseMysqlUrl } from './url.ts';
