// @toolrow/state: Toolrow's own state, in a store of its own (never the user's database). See README.md.

// Profiles and actors are named by the state too; one definition, in the data layer.
export { type Actor, DEFAULT_PROFILE, isActor } from '@toolrow/datasource';
export {
  type AddConnectionInput,
  type AddConnectionOptions,
  type AddedConnection,
  addConnection,
  type ConnectionFindings,
  connectionDataOptions,
  inspectConnection,
} from './add-connection.ts';
export { type AppState, type AppStateOptions, createAppState, type ListOptions } from './app-state.ts';
export * from './app-types.ts';
export { readSecrets, SECRETS_FILE, secretsPath, writeSecret } from './connection-secrets.ts';
export {
  hasModelKey,
  MODEL_KEYS_FILE,
  readModelKey,
  sealingKeyPath,
  writeModelKey,
} from './model-keys.ts';
export {
  type ConnectionTarget,
  checkConnectionName,
  type ParsedConnectionUrl,
  parseConnectionUrl,
  targetOf,
  UNNAMED_CONNECTION,
} from './named-connections.ts';
export { OAUTH_PREFIX } from './oauth-store.ts';
export { engineOfUrl, openEngine } from './open-engine.ts';
export { digestInput } from './repositories/audit.ts';
export { unknownConnection } from './repositories/connections.ts';
export { CONVERSATION_ID_PATTERN, conversationTitle } from './repositories/conversations.ts';
export {
  PERSONAL_TOKEN_PREFIX,
  type PersonalToken,
  type PersonToCheck,
  type ProviderView,
  type Removal,
  type TeamPeopleRepository,
  type TeamPerson,
} from './repositories/team-people.ts';
export {
  LOGIN_TTL_MS,
  type PendingLogin,
  TEAM_ROLES,
  type TeamRole,
  type TeamSession,
  type TeamSessionRepository,
} from './repositories/team-sessions.ts';
export type * from './staging.ts';
export {
  createStaging,
  reviewDigest,
  STAGING_ACTIONS,
  type StagingAction,
  TEAM_STORE_KEY,
} from './staging.ts';
export type { AppStateHandle, OpenStateOptions, ToolrowState } from './state.ts';
export { openAppState, openState, resolveDataDir } from './state.ts';
export { type DialectTypes, MIGRATIONS, type Migration, migrate } from './store/migrations.ts';
export {
  openSqliteStore,
  postgresStore,
  STATE_BUSY_TIMEOUT_MS,
  type StateDb,
  type StateDialect,
  type StateQueries,
} from './store/state-db.ts';
export type { StateTables } from './store/tables.ts';
export { hashToken } from './token-hash.ts';
export type { ActiveConnection, ConnectionHub, OpenToolrowOptions, Toolrow } from './toolrow.ts';
export {
  createConnectionHub,
  openConnectionData,
  openToolrow,
  resolveConnectionName,
  resolveConnectionOptions,
} from './toolrow.ts';
export { LAST_USE_FLUSH_MS, VERIFY_CACHE_TTL_MS } from './verify-cache.ts';
