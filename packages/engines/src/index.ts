// @toolrow/engines: the one registry of the engines the apps have installed. An engine is one
// package and one line here; nothing else in the apps names an engine. See README.md.
import { createEngineRegistry } from '@toolrow/datasource/engine';
import { dynamodbEngine } from '@toolrow/dynamodb/engine';
import { mysqlEngine } from '@toolrow/mysql/engine';
import { postgresEngine } from '@toolrow/postgres/engine';
import { sqliteEngine } from '@toolrow/sqlite/engine';

/** The installed engines; the first that opens without a URL (PostgreSQL's PGlite) is the default. */
export const installedEngines = createEngineRegistry([
  postgresEngine,
  dynamodbEngine,
  sqliteEngine,
  mysqlEngine,
]);
