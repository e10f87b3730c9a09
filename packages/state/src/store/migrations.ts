// One set of migrations for both dialects: each is written once, with the few column types and
// defaults that differ between SQLite and PostgreSQL named by the `t` it is given.
import { APP_SCHEMA, DataSourceError } from '@toolrow/datasource';
import { sql } from 'kysely';
import type { StateDb, StateDialect } from './state-db.ts';

/** The spellings a migration needs, per dialect. */
export interface DialectTypes {
  /** Schema prefix of a table ("toolrow." on PostgreSQL, nothing on SQLite). */
  s: string;
  /** A rising 64-bit id primary key. */
  id: string;
  /** A rising 64-bit counter column that is not the key (set with nextValue on insert). */
  counter: string;
  timestamp: string;
  now: string;
  /** JSON that may be queried (jsonb) / kept verbatim (json). */
  jsonb: string;
  json: string;
  bytes: string;
  boolean: string;
  false: string;
}

const TYPES: Record<StateDialect, DialectTypes> = {
  postgres: {
    s: `${APP_SCHEMA}.`,
    id: 'bigserial PRIMARY KEY',
    counter: 'bigserial',
    timestamp: 'timestamptz',
    now: 'now()',
    jsonb: 'jsonb',
    json: 'json',
    bytes: 'bytea',
    boolean: 'boolean',
    false: 'false',
  },
  sqlite: {
    s: '',
    id: 'INTEGER PRIMARY KEY AUTOINCREMENT',
    counter: 'integer NOT NULL',
    timestamp: 'text',
    // The same ISO text a Date binds as (see node-sqlite-dialect.ts): text order is time order.
    now: `(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
    jsonb: 'text',
    json: 'text',
    bytes: 'blob',
    boolean: 'integer',
    false: '0',
  },
};

export interface Migration {
  version: number;
  name: string;
  /** The statements, for the dialect's spellings. */
  sql(t: DialectTypes, dialect: StateDialect): string;
}

/**
 * The state's migrations, in order. Append only: never edit one that has shipped, add the next.
 * Each runs in its own transaction together with its row in schema_migrations.
 *
 * Version 8 is the whole schema as releases up to 0.1 left it after their migrations 1–8 (which
 * were PostgreSQL-only): a PostgreSQL store made by those releases is at 8 already, and a new store
 * of either dialect starts there.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 8,
    name: 'app state',
    sql: (t, dialect) => `
CREATE TABLE ${t.s}profiles (
  name text PRIMARY KEY,
  mode text NOT NULL DEFAULT 'manual' CHECK (mode IN ('manual', 'auto', 'full-auto')),
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
-- A "yes" remembered in Auto mode belongs to whoever was asked: the chat agent, or one MCP client (mcp:<name>).
CREATE TABLE ${t.s}grants (
  profile text NOT NULL REFERENCES ${t.s}profiles(name) ON DELETE CASCADE,
  tool text NOT NULL,
  table_name text NOT NULL,
  granted_by text NOT NULL,
  granted_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  grantee text NOT NULL,
  PRIMARY KEY (profile, grantee, tool, table_name)
);
CREATE TABLE ${t.s}ui_state (
  profile text PRIMARY KEY,
  tabs ${t.jsonb} NOT NULL DEFAULT '[]',
  focused_tab_id text,
  selection ${t.jsonb},
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
-- A commit records its write transaction's id with its claim, so a commit whose process died after
-- the data's COMMIT is recognised as applied instead of being applied again.
CREATE TABLE ${t.s}commits (
  id ${t.id},
  xid text,
  state text NOT NULL CHECK (state IN ('applying', 'applied', 'failed')),
  committed_by text NOT NULL,
  applied ${t.jsonb},
  error text,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  finished_at ${t.timestamp}
);
CREATE INDEX commits_applying ON ${t.s}commits (id) WHERE state = 'applying';
CREATE TABLE ${t.s}staged_changes (
  id ${t.id},
  kind text NOT NULL CHECK (kind IN ('insert', 'update', 'delete')),
  table_schema text NOT NULL,
  table_name text NOT NULL,
  row_key ${t.jsonb},
  before ${t.jsonb},
  "values" ${t.jsonb},
  staged_by text NOT NULL,
  profile text NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  commit_id bigint REFERENCES ${t.s}commits(id)
);
CREATE INDEX staged_changes_table ON ${t.s}staged_changes (table_schema, table_name);
CREATE TABLE ${t.s}saved_specs (
  name text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('view', 'query', 'export')),
  description text,
  spec ${t.jsonb} NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE TABLE ${t.s}query_history (
  id ${t.id},
  profile text NOT NULL,
  actor text NOT NULL,
  sql text NOT NULL,
  row_count integer,
  duration_ms integer,
  error text,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE INDEX query_history_profile ON ${t.s}query_history (profile, id DESC);
CREATE TABLE ${t.s}audit_log (
  id ${t.id},
  tool text NOT NULL,
  input_digest text NOT NULL,
  decision text NOT NULL CHECK (decision IN ('asked', 'approved', 'denied', 'auto')),
  decided_by text NOT NULL,
  profile text NOT NULL,
  table_name text,
  detail text,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE INDEX audit_log_profile ON ${t.s}audit_log (profile, id DESC);
-- seq: two rows written in the same microsecond share created_at; "the newest" needs a strict order.
CREATE TABLE ${t.s}export_jobs (
  id text PRIMARY KEY,
  profile text NOT NULL,
  actor text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  format text NOT NULL CHECK (format IN ('csv', 'json', 'ndjson')),
  path text NOT NULL,
  source ${t.jsonb} NOT NULL,
  rows_done bigint NOT NULL DEFAULT 0,
  rows_estimate bigint,
  bytes_written bigint NOT NULL DEFAULT 0,
  error text,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  started_at ${t.timestamp},
  finished_at ${t.timestamp},
  seq ${t.counter}
);
CREATE TABLE ${t.s}attachments (
  id text PRIMARY KEY,
  profile text NOT NULL,
  name text NOT NULL,
  media_type text NOT NULL,
  content ${t.bytes} NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  seq ${t.counter}
);
CREATE INDEX attachments_profile_name ON ${t.s}attachments (profile, name, created_at DESC);
CREATE TABLE ${t.s}connections (
  name text PRIMARY KEY,
  engine text NOT NULL CHECK (engine IN ('pglite', 'postgres')),
  description text NOT NULL,
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE TABLE ${t.s}mcp_tokens (
  id ${t.id},
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  scope text NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  expires_at ${t.timestamp},
  revoked_at ${t.timestamp},
  last_used_at ${t.timestamp},
  ask_via_client ${t.boolean} NOT NULL DEFAULT ${t.false}
);
-- A name is reusable once its token is revoked, never twice live.
CREATE UNIQUE INDEX mcp_tokens_live_name ON ${t.s}mcp_tokens (name) WHERE revoked_at IS NULL;
${dialect === 'postgres' ? `CREATE SEQUENCE ${t.s}conversations_touched;` : ''}
-- messages is kept verbatim (json, not jsonb: key order kept) and never queried inside. touched
-- orders "most recent" strictly, as updated_at can tie.
CREATE TABLE ${t.s}conversations (
  profile text NOT NULL,
  id text NOT NULL,
  title text NOT NULL,
  messages ${t.json} NOT NULL,
  message_count integer NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  touched bigint NOT NULL,
  PRIMARY KEY (profile, id)
);
CREATE INDEX conversations_recent ON ${t.s}conversations (profile, touched DESC);
-- Toolrow's OAuth authorization server: a grant is one consent and the family of its refresh
-- tokens (revoking it ends them all). Codes and tokens are stored as sha-256 only.
CREATE TABLE ${t.s}oauth_clients (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('registered', 'metadata-document')),
  name text NOT NULL,
  redirect_uris ${t.jsonb} NOT NULL,
  metadata ${t.jsonb} NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE TABLE ${t.s}oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES ${t.s}oauth_clients(id) ON DELETE CASCADE,
  scope text NOT NULL,
  profile text NOT NULL,
  resource text NOT NULL,
  actor_name text NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  expires_at ${t.timestamp},
  revoked_at ${t.timestamp},
  revoked_reason text,
  last_used_at ${t.timestamp},
  ask_via_client ${t.boolean} NOT NULL DEFAULT ${t.false}
);
CREATE INDEX oauth_grants_client ON ${t.s}oauth_grants (client_id);
CREATE TABLE ${t.s}oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES ${t.s}oauth_grants(id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at ${t.timestamp} NOT NULL,
  used_at ${t.timestamp}
);
CREATE TABLE ${t.s}oauth_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES ${t.s}oauth_grants(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  expires_at ${t.timestamp},
  used_at ${t.timestamp},
  revoked_at ${t.timestamp}
);
CREATE INDEX oauth_tokens_grant ON ${t.s}oauth_tokens (grant_id);
`,
  },
  {
    version: 9,
    name: 'named connections',
    sql: (t) => `
-- A named connection: where it points (never with a password: that lives in the data dir's
-- connection-secrets.json, 0600, or comes from the environment), and which MCP scope may reach it
-- (NULL: not exposed). Its mode is its profile's (profiles.name = connections.name).
ALTER TABLE ${t.s}connections ADD COLUMN url text;
ALTER TABLE ${t.s}connections ADD COLUMN mcp_scope text CHECK (mcp_scope IN ('tables:readonly', 'tables:staged', 'tables:full'));
-- Which connection's data a staged change is for: a commit applies only its own connection's changes.
ALTER TABLE ${t.s}staged_changes ADD COLUMN connection text NOT NULL DEFAULT 'default';
CREATE INDEX staged_changes_connection ON ${t.s}staged_changes (connection, id);
CREATE TABLE ${t.s}settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
`,
  },
  {
    version: 10,
    name: 'dynamodb connections',
    // SQLite cannot change a CHECK constraint in place: the table is copied into a new one.
    sql: (t) => `
CREATE TABLE ${t.s}connections_v10 (
  name text PRIMARY KEY,
  engine text NOT NULL CHECK (engine IN ('pglite', 'postgres', 'dynamodb')),
  description text NOT NULL,
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  url text,
  mcp_scope text CHECK (mcp_scope IN ('tables:readonly', 'tables:staged', 'tables:full'))
);
INSERT INTO ${t.s}connections_v10 (name, engine, description, updated_at, url, mcp_scope)
  SELECT name, engine, description, updated_at, url, mcp_scope FROM ${t.s}connections;
DROP TABLE ${t.s}connections;
ALTER TABLE ${t.s}connections_v10 RENAME TO connections;
`,
  },
  {
    version: 11,
    name: 'audit summaries',
    // What the call did, in one plain line (the input itself is still only digested).
    sql: (t) => `
ALTER TABLE ${t.s}audit_log ADD COLUMN summary text;
`,
  },
  {
    version: 12,
    name: 'tokens bound to a connection',
    // A token is served on the connection it was made for alone; NULL: made before this version.
    sql: (t) => `
ALTER TABLE ${t.s}mcp_tokens ADD COLUMN connection text;
`,
  },
  {
    version: 13,
    name: 'commit leases and unknown outcomes',
    // Who holds a claimed commit (host:pid:instance) and until when, so no reader decides for a
    // live committer; the request an engine can resend to learn the outcome (DynamoDB's
    // ClientRequestToken); and, when the outcome cannot be told, the flag on the commit and on its
    // released changes until the user resolves it.
    sql: (t) => `
ALTER TABLE ${t.s}commits ADD COLUMN holder text;
ALTER TABLE ${t.s}commits ADD COLUMN lease_until ${t.timestamp};
ALTER TABLE ${t.s}commits ADD COLUMN replay text;
ALTER TABLE ${t.s}commits ADD COLUMN uncertain ${t.boolean} NOT NULL DEFAULT ${t.false};
ALTER TABLE ${t.s}staged_changes ADD COLUMN uncertain_commit bigint;
`,
  },
  {
    version: 14,
    name: 'connections of any installed engine',
    // The driver is an installed engine's id, checked by the engine registry when a connection is
    // added, so a new engine needs no migration: the last copy of the table drops the CHECK list.
    sql: (t) => `
CREATE TABLE ${t.s}connections_v14 (
  name text PRIMARY KEY,
  engine text NOT NULL,
  description text NOT NULL,
  updated_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  url text,
  mcp_scope text CHECK (mcp_scope IN ('tables:readonly', 'tables:staged', 'tables:full'))
);
INSERT INTO ${t.s}connections_v14 (name, engine, description, updated_at, url, mcp_scope)
  SELECT name, engine, description, updated_at, url, mcp_scope FROM ${t.s}connections;
DROP TABLE ${t.s}connections;
ALTER TABLE ${t.s}connections_v14 RENAME TO connections;
`,
  },
  {
    version: 15,
    name: 'engine cache',
    // What an engine learnt of a connection (DynamoDB: each table's sampled schema), with its age,
    // so every process on this store reuses it instead of reading it again.
    sql: (t) => `
CREATE TABLE ${t.s}engine_cache (
  key text PRIMARY KEY,
  value text NOT NULL,
  saved_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
`,
  },
  {
    version: 16,
    name: 'team sessions',
    // Team mode's sign-ins: a login in flight (its state, nonce and PKCE verifier, used once) and the
    // sessions it makes, kept here so every instance on this store knows them. Tokens are hashed.
    sql: (t) => `
CREATE TABLE ${t.s}team_logins (
  state text PRIMARY KEY,
  nonce text NOT NULL,
  verifier text NOT NULL,
  return_to text NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
);
CREATE TABLE ${t.s}team_sessions (
  token_hash text PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'analyst', 'approver', 'admin')),
  csrf text NOT NULL,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  seen_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  expires_at ${t.timestamp} NOT NULL
);
CREATE INDEX team_sessions_email ON ${t.s}team_sessions (email);
`,
  },
  {
    version: 17,
    name: 'people',
    // Team mode's people: who staged, committed, decided and holds each token, and what the provider
    // last said of them (their groups and role; a refresh token to ask again), so every instance can
    // end a removed person's sessions and tokens. Personal tokens are the CLI's, hashed.
    sql: (t) => `
ALTER TABLE ${t.s}staged_changes ADD COLUMN person text;
ALTER TABLE ${t.s}commits ADD COLUMN person text;
ALTER TABLE ${t.s}commits ADD COLUMN reviewed text;
ALTER TABLE ${t.s}audit_log ADD COLUMN person text;
ALTER TABLE ${t.s}mcp_tokens ADD COLUMN person text;
ALTER TABLE ${t.s}oauth_grants ADD COLUMN person text;
CREATE TABLE ${t.s}team_people (
  email text PRIMARY KEY,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'analyst', 'approver', 'admin')),
  groups ${t.json} NOT NULL,
  refresh_token text,
  access_token text,
  access_expires_at ${t.timestamp},
  checked_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  removed_at ${t.timestamp}
);
CREATE TABLE ${t.s}team_tokens (
  id ${t.id},
  name text NOT NULL,
  email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at ${t.timestamp} NOT NULL DEFAULT ${t.now},
  expires_at ${t.timestamp},
  last_used_at ${t.timestamp},
  revoked_at ${t.timestamp}
);
CREATE UNIQUE INDEX team_tokens_live_name ON ${t.s}team_tokens (email, name) WHERE revoked_at IS NULL;
`,
  },
];

// Two processes opening the same server at once must not both migrate.
const LOCK_KEY = 7_250_431_001;

/** The oldest store version this release can carry forward. */
const BASELINE = 8;

/** Applies the pending migrations, one transaction each; returns the versions applied. */
export async function migrate(
  store: StateDb,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const { q, dialect } = store;
  const t = TYPES[dialect];
  if (dialect === 'postgres') await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${APP_SCHEMA}`).execute(q);
  await sql
    .raw(`CREATE TABLE IF NOT EXISTS ${t.s}schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at ${t.timestamp} NOT NULL DEFAULT ${t.now}
)`)
    .execute(q);
  const newest = async (db: typeof q) =>
    Number(
      (
        await db
          .selectFrom('schema_migrations')
          .select((e) => e.fn.max('version').as('v'))
          .executeTakeFirst()
      )?.v ?? 0,
    );
  const before = await newest(q);
  if (before > 0 && before < BASELINE) {
    throw new DataSourceError(
      'config',
      `${store.description} holds Toolrow state at version ${before}, written by a pre-release of Toolrow that this one cannot carry forward (it starts at version ${BASELINE}). Open it with the release that wrote it to take out what you need, or give this Toolrow a new store (another TOOLROW_STATE_URL database, or another TOOLROW_DATA_DIR).`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await q.transaction().execute(async (tx) => {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`.execute(tx);
      const existing = await tx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '>=', migration.version)
        .executeTakeFirst();
      if (existing) return false;
      try {
        for (const statement of splitStatements(migration.sql(t, dialect)))
          await sql.raw(statement).execute(tx);
      } catch (error) {
        throw new DataSourceError(
          'config',
          `State migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}. The store was left at the previous version.`,
          { cause: error },
        );
      }
      await tx
        .insertInto('schema_migrations')
        .values({ version: migration.version, name: migration.name })
        .execute();
      return true;
    });
    if (done) applied.push(migration.version);
  }
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  const after = await newest(q);
  if (after > known) {
    throw new DataSourceError(
      'config',
      `${store.description} holds Toolrow state at version ${after}, newer than this Toolrow knows (${known}). Upgrade Toolrow, or point it at another store.`,
    );
  }
  return applied;
}

/** Migration scripts hold no strings with semicolons, so a plain split is enough. */
function splitStatements(script: string): string[] {
  return script
    .split(/;\s*\n/)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}
