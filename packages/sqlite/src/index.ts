// @toolrow/sqlite: the SQLite engine — a database file through node:sqlite, reads in worker threads —
// behind @toolrow/datasource's interface. See README.md.
export { affinityOf, createSqliteChangeWriter } from './changes.ts';
export { sqliteEngine } from './engine.ts';
export { SQLITE_FEATURES } from './features.ts';
export { SQLITE_LANGUAGE } from './queries.ts';
export type { ReadLayers } from './read-protocol.ts';
export { compileSqliteFilter } from './rows.ts';
export { loadSqliteSchema } from './schema.ts';
export { seedSqliteShop } from './seed.ts';
export { ALL_LAYERS, type OpenSqliteOptions, openSqliteDataSource, type SqliteLayers } from './source.ts';
export { checkSqliteText } from './statement-check.ts';
export { parseSqliteUrl, SQLITE_URL_FORMS } from './url.ts';
