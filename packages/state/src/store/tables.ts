// The state store's tables, as Kysely sees them on both dialects. Values read back differ by
// dialect (PostgreSQL: Date, parsed JSON, bigint as text; SQLite: ISO text, JSON text, numbers);
// the row mappers normalise them (read.ts), so these types say what each dialect may return.
import type { ColumnType, Generated } from 'kysely';

/** Written as a Date (SQLite stores its ISO text); read as a Date (PostgreSQL) or ISO text (SQLite). */
export type Timestamp = ColumnType<Date | string, Date | undefined, Date>;
export type NullableTimestamp = ColumnType<Date | string | null, Date | null | undefined, Date | null>;
/** Written as JSON text; read parsed (PostgreSQL) or as text (SQLite). */
export type Json = ColumnType<unknown, string, string>;
export type NullableJson = ColumnType<unknown, string | null | undefined, string | null>;
/** bigserial / INTEGER PRIMARY KEY AUTOINCREMENT: text from pg, a number from SQLite. */
export type Serial = Generated<number | string>;
export type BigCount = ColumnType<number | string, number | undefined, number>;
export type Flag = ColumnType<boolean | number, boolean | undefined, boolean>;

export interface StateTables {
  schema_migrations: { version: number; name: string; applied_at: Timestamp };
  profiles: { name: string; mode: Generated<string>; created_at: Generated<Date | string> };
  grants: {
    profile: string;
    grantee: string;
    tool: string;
    table_name: string;
    granted_by: string;
    granted_at: Timestamp;
  };
  engine_cache: {
    key: string;
    value: string;
    saved_at: Timestamp;
  };
  team_logins: {
    state: string;
    nonce: string;
    verifier: string;
    return_to: string;
    created_at: Timestamp;
  };
  team_sessions: {
    token_hash: string;
    email: string;
    name: string;
    role: string;
    csrf: string;
    created_at: Timestamp;
    seen_at: Timestamp;
    expires_at: Timestamp;
  };
  team_people: {
    email: string;
    name: string;
    role: string;
    groups: Json;
    refresh_token: string | null;
    access_token: string | null;
    access_expires_at: NullableTimestamp;
    checked_at: Timestamp;
    removed_at: NullableTimestamp;
  };
  team_tokens: {
    id: Serial;
    name: string;
    email: string;
    token_hash: string;
    created_at: Timestamp;
    expires_at: NullableTimestamp;
    last_used_at: NullableTimestamp;
    revoked_at: NullableTimestamp;
  };
  ui_state: {
    profile: string;
    tabs: Json;
    focused_tab_id: string | null;
    selection: NullableJson;
    updated_at: Timestamp;
  };
  staged_changes: {
    id: Serial;
    kind: string;
    table_schema: string;
    table_name: string;
    row_key: NullableJson;
    before: NullableJson;
    values: NullableJson;
    staged_by: string;
    profile: string;
    created_at: Timestamp;
    commit_id: ColumnType<number | string | null, number | null | undefined, number | null>;
    connection: Generated<string>;
    uncertain_commit: ColumnType<number | string | null, number | null | undefined, number | null>;
    /** Team mode: the person whose change it is (an agent's or MCP client's change is its person's). */
    person: ColumnType<string | null, string | null | undefined, string | null>;
  };
  commits: {
    id: Serial;
    xid: string | null;
    state: string;
    committed_by: string;
    applied: NullableJson;
    error: string | null;
    created_at: Timestamp;
    finished_at: NullableTimestamp;
    holder: string | null;
    lease_until: NullableTimestamp;
    replay: string | null;
    uncertain: Flag;
    /** Team mode: the approver who committed, and the digest of the changes they reviewed. */
    person: ColumnType<string | null, string | null | undefined, string | null>;
    reviewed: ColumnType<string | null, string | null | undefined, string | null>;
  };
  saved_specs: {
    name: string;
    kind: string;
    description: string | null;
    spec: Json;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  query_history: {
    id: Serial;
    profile: string;
    actor: string;
    sql: string;
    row_count: number | null;
    duration_ms: number | null;
    error: string | null;
    created_at: Timestamp;
  };
  audit_log: {
    id: Serial;
    tool: string;
    input_digest: string;
    decision: string;
    decided_by: string;
    profile: string;
    table_name: string | null;
    detail: string | null;
    /** The call in one plain line (describeCall), for the person reading the log. */
    summary: string | null;
    created_at: Timestamp;
    person: ColumnType<string | null, string | null | undefined, string | null>;
  };
  export_jobs: {
    id: string;
    profile: string;
    actor: string;
    state: string;
    format: string;
    path: string;
    source: Json;
    rows_done: BigCount;
    rows_estimate: ColumnType<number | string | null, number | null, number | null>;
    bytes_written: BigCount;
    error: string | null;
    created_at: Timestamp;
    started_at: NullableTimestamp;
    finished_at: NullableTimestamp;
    seq: ColumnType<number | string, number | undefined, never>;
  };
  attachments: {
    id: string;
    profile: string;
    name: string;
    media_type: string;
    content: Uint8Array;
    created_at: Timestamp;
    seq: ColumnType<number | string, number | undefined, never>;
  };
  connections: {
    name: string;
    engine: string;
    description: string;
    updated_at: Timestamp;
    /** Named connections only: where it points, without a password. */
    url: string | null;
    mcp_scope: string | null;
  };
  settings: { key: string; value: string; updated_at: Timestamp };
  mcp_tokens: {
    id: Serial;
    name: string;
    token_hash: string;
    scope: string;
    created_at: Timestamp;
    expires_at: NullableTimestamp;
    revoked_at: NullableTimestamp;
    last_used_at: NullableTimestamp;
    ask_via_client: Flag;
    connection: string | null;
    person: ColumnType<string | null, string | null | undefined, string | null>;
  };
  conversations: {
    profile: string;
    id: string;
    title: string;
    messages: Json;
    message_count: number;
    created_at: Timestamp;
    updated_at: Timestamp;
    touched: ColumnType<number | string, number | undefined, number>;
  };
  oauth_clients: {
    id: string;
    kind: string;
    name: string;
    redirect_uris: Json;
    metadata: Json;
    created_at: Timestamp;
  };
  oauth_grants: {
    id: string;
    client_id: string;
    scope: string;
    profile: string;
    resource: string;
    actor_name: string;
    created_at: Timestamp;
    expires_at: NullableTimestamp;
    revoked_at: NullableTimestamp;
    revoked_reason: string | null;
    last_used_at: NullableTimestamp;
    ask_via_client: Flag;
    person: ColumnType<string | null, string | null | undefined, string | null>;
  };
  oauth_codes: {
    code_hash: string;
    grant_id: string;
    redirect_uri: string;
    code_challenge: string;
    expires_at: Timestamp;
    used_at: NullableTimestamp;
  };
  oauth_tokens: {
    token_hash: string;
    grant_id: string;
    kind: string;
    created_at: Timestamp;
    expires_at: NullableTimestamp;
    used_at: NullableTimestamp;
    revoked_at: NullableTimestamp;
  };
}
