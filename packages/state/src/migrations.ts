import { APP_SCHEMA, type Database, DataSourceError } from '@toolrow/datasource';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const S = APP_SCHEMA;

/**
 * The app-state migrations, in order. Append only: never edit one that has shipped, add the next.
 * Each runs in its own transaction together with its row in schema_migrations.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'app state',
    sql: `
CREATE TABLE ${S}.profiles (
  name text PRIMARY KEY,
  mode text NOT NULL DEFAULT 'manual' CHECK (mode IN ('manual', 'auto', 'full-auto')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${S}.grants (
  profile text NOT NULL REFERENCES ${S}.profiles(name) ON DELETE CASCADE,
  tool text NOT NULL,
  table_name text NOT NULL,
  granted_by text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (profile, tool, table_name)
);
CREATE TABLE ${S}.ui_state (
  profile text PRIMARY KEY,
  tabs jsonb NOT NULL DEFAULT '[]',
  focused_tab_id text,
  selection jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${S}.staged_changes (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('insert', 'update', 'delete')),
  table_schema text NOT NULL,
  table_name text NOT NULL,
  row_key jsonb,
  before jsonb,
  "values" jsonb,
  staged_by text NOT NULL,
  profile text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX staged_changes_table ON ${S}.staged_changes (table_schema, table_name);
CREATE TABLE ${S}.saved_specs (
  name text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('view', 'query', 'export')),
  description text,
  spec jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${S}.query_history (
  id bigserial PRIMARY KEY,
  profile text NOT NULL,
  actor text NOT NULL,
  sql text NOT NULL,
  row_count integer,
  duration_ms integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX query_history_profile ON ${S}.query_history (profile, id DESC);
CREATE TABLE ${S}.audit_log (
  id bigserial PRIMARY KEY,
  tool text NOT NULL,
  input_digest text NOT NULL,
  decision text NOT NULL CHECK (decision IN ('asked', 'approved', 'denied', 'auto')),
  decided_by text NOT NULL,
  profile text NOT NULL,
  table_name text,
  detail text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_profile ON ${S}.audit_log (profile, id DESC);
CREATE TABLE ${S}.export_jobs (
  id text PRIMARY KEY,
  profile text NOT NULL,
  actor text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  format text NOT NULL CHECK (format IN ('csv', 'json', 'ndjson')),
  path text NOT NULL,
  source jsonb NOT NULL,
  rows_done bigint NOT NULL DEFAULT 0,
  rows_estimate bigint,
  bytes_written bigint NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE TABLE ${S}.attachments (
  id text PRIMARY KEY,
  profile text NOT NULL,
  name text NOT NULL,
  media_type text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_profile_name ON ${S}.attachments (profile, name, created_at DESC);
CREATE TABLE ${S}.connections (
  name text PRIMARY KEY,
  engine text NOT NULL CHECK (engine IN ('pglite', 'postgres')),
  description text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${S}.mcp_tokens (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  scope text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
-- A name is reusable once its token is revoked, never twice live.
CREATE UNIQUE INDEX mcp_tokens_live_name ON ${S}.mcp_tokens (name) WHERE revoked_at IS NULL;
`,
  },
  {
    version: 2,
    name: 'insertion order for attachments and export jobs',
    // Two rows written in the same microsecond share created_at; "the newest" needs a strict order.
    sql: `
ALTER TABLE ${S}.attachments ADD COLUMN seq bigserial;
ALTER TABLE ${S}.export_jobs ADD COLUMN seq bigserial;
`,
  },
  {
    version: 3,
    name: 'conversations',
    // messages is json, not jsonb: stored verbatim (key order kept, \u0000 in a string accepted) and
    // never queried inside. touched orders "most recent" strictly, as updated_at can tie.
    sql: `
CREATE SEQUENCE ${S}.conversations_touched;
CREATE TABLE ${S}.conversations (
  profile text NOT NULL,
  id text NOT NULL,
  title text NOT NULL,
  messages json NOT NULL,
  message_count integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  touched bigint NOT NULL DEFAULT nextval('${S}.conversations_touched'),
  PRIMARY KEY (profile, id)
);
CREATE INDEX conversations_recent ON ${S}.conversations (profile, touched DESC);
`,
  },
  {
    version: 4,
    name: 'commits recorded apart from the data',
    // The staging area no longer shares a database with the tables it changes. A commit records its
    // write transaction's id before applying, so a commit whose process died after the data's
    // COMMIT is recognised as applied (pg_xact_status) instead of being applied again.
    sql: `
CREATE TABLE ${S}.commits (
  id bigserial PRIMARY KEY,
  xid text,
  state text NOT NULL CHECK (state IN ('applying', 'applied', 'failed')),
  committed_by text NOT NULL,
  applied jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX commits_applying ON ${S}.commits (id) WHERE state = 'applying';
ALTER TABLE ${S}.staged_changes ADD COLUMN commit_id bigint REFERENCES ${S}.commits(id);
`,
  },
  {
    version: 5,
    name: 'oauth clients, grants, codes and tokens',
    // Toolrow is its own OAuth 2.1 authorization server for the MCP endpoint. A grant is one
    // consent (client, scope, profile, resource, lifetime) and the family of its refresh tokens:
    // revoking it ends every token issued under it. Codes and tokens are stored as sha-256 only.
    sql: `
CREATE TABLE ${S}.oauth_clients (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('registered', 'metadata-document')),
  name text NOT NULL,
  redirect_uris jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${S}.oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES ${S}.oauth_clients(id) ON DELETE CASCADE,
  scope text NOT NULL,
  profile text NOT NULL,
  resource text NOT NULL,
  actor_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text,
  last_used_at timestamptz
);
CREATE INDEX oauth_grants_client ON ${S}.oauth_grants (client_id);
CREATE TABLE ${S}.oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES ${S}.oauth_grants(id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE TABLE ${S}.oauth_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES ${S}.oauth_grants(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_tokens_grant ON ${S}.oauth_tokens (grant_id);
`,
  },
  {
    // 6, not 5: the OAuth branch takes 5. Versions apply in order and gaps are fine.
    version: 6,
    name: 'mcp tokens that ask through the client',
    // A CLI-minted token the user trusts to ask its own user (MCP elicitation) when the ladder asks.
    sql: `
ALTER TABLE ${S}.mcp_tokens ADD COLUMN ask_via_client boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 7,
    name: 'oauth connections that ask through the client',
    // The consent page's "let it ask you itself": the OAuth twin of migration 6.
    sql: `
ALTER TABLE ${S}.oauth_grants ADD COLUMN ask_via_client boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 8,
    name: 'remembered grants per grantee',
    // A "yes" remembered in Auto mode belongs to whoever was asked about: the chat agent, or one MCP
    // client (mcp:<name>), never every caller of the profile. Grants from before could have been
    // given to anyone; they stay with the chat, so an MCP client is asked again.
    sql: `
ALTER TABLE ${S}.grants ADD COLUMN grantee text NOT NULL DEFAULT 'agent';
ALTER TABLE ${S}.grants ALTER COLUMN grantee DROP DEFAULT;
ALTER TABLE ${S}.grants DROP CONSTRAINT grants_pkey;
ALTER TABLE ${S}.grants ADD PRIMARY KEY (profile, grantee, tool, table_name);
`,
  },
];

// Two processes opening the same server at once must not both migrate.
const LOCK_KEY = 7_250_431_001;

/** Applies the pending app-state migrations, one transaction each; returns the versions applied. */
export async function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${S};
CREATE TABLE IF NOT EXISTS ${S}.schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`);
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const existing = await tx.query(`SELECT 1 FROM ${S}.schema_migrations WHERE version = $1`, [
        migration.version,
      ]);
      if (existing.rows.length > 0) return false;
      try {
        for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      } catch (error) {
        throw new DataSourceError(
          'config',
          `App-state migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}. The database was left at the previous version.`,
          { cause: error },
        );
      }
      await tx.query(`INSERT INTO ${S}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  const newest = await db.query<{ version: number }>(
    `SELECT max(version) AS version FROM ${S}.schema_migrations`,
  );
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  if ((newest.rows[0]?.version ?? 0) > known) {
    throw new DataSourceError(
      'config',
      `The app state in this database is at version ${newest.rows[0]?.version}, newer than this Toolrow knows (${known}). Upgrade Toolrow, or point it at another database.`,
    );
  }
  return applied;
}

/** Migration scripts hold no strings with semicolons or dollar quotes, so a plain split is enough. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}
