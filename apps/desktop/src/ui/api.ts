// The server's HTTP API as the desktop sees it: wire types and one small fetch client.
// The server (apps/server) maps the data layer onto these shapes; the end-to-end tests hold both ends together.

import type { TableRead } from '@toolrow/datasource';
import type { UIMessage } from 'ai';

export type PermissionMode = 'manual' | 'auto' | 'full-auto';

export const PERMISSION_MODES: readonly { mode: PermissionMode; label: string; hint: string }[] = [
  {
    mode: 'manual',
    label: 'Manual',
    hint: 'Every gated action asks first (a proposal chip is its own ask).',
  },
  {
    mode: 'auto',
    label: 'Auto',
    hint: 'Reads ask once per table; staging and proposals run; opening and exports ask.',
  },
  { mode: 'full-auto', label: 'Full Auto', hint: 'Everything runs. Writes still only stage: you commit.' },
];

export interface AppStatus {
  version: string;
  database: {
    /** The driver the connection is open on ('pglite', 'postgres', 'dynamodb'). */
    engine: string;
    /** Values are shown and edited in the engine's typed form (DynamoDB's numbers, sets, maps, binary). */
    typedValues: boolean;
    location: string;
    /** The workbench's language on this connection and a first statement to try. */
    language: { name: string; example: string };
    /** Every language the connection reads (DynamoDB: SQL, and its own PartiQL). */
    languages?: { name: string; example: string }[];
  };
  model: { configured: boolean; id?: string; hint?: string };
  mcp: { enabled: boolean; url?: string };
  profile: string;
  mode: PermissionMode;
  /** The active connection's name ('default': DATABASE_URL, else the embedded sample). */
  connection: string;
}

/** What Settings → Model enters and sends: never the saved key back. */
export interface ModelChoice {
  provider: string;
  modelId?: string;
  baseURL?: string;
  region?: string;
  awsProfile?: string;
  /** A new key; empty: keep the saved one; null (on save): forget it. */
  apiKey?: string | null;
}

/** Settings → Model (GET /api/settings/model): the active profile's model. */
export interface ModelSettingsView {
  profile: string;
  providers: string[];
  /** The model saved in Settings for this profile, if any (without its key). */
  saved:
    | (Omit<ModelChoice, 'apiKey'> & {
        modelId: string;
        label: string;
        hasKey: boolean;
        updatedAt: string;
      })
    | null;
  /** TOOLROW_MODEL, which applies when nothing is saved. */
  env: string | null;
  /** The model the chat uses now; null: none. */
  active: string | null;
  /** Why the model that applies cannot be used, if it cannot. */
  problem: string | null;
}

export type ModelTestResult =
  | { ok: true; ms: number; text: string }
  | { ok: false; ms: number; message: string };

/** A connection the app can switch to (GET /api/connections): never a password. */
export interface ConnectionSummary {
  name: string;
  engine: string;
  /** Where it points, without a password. */
  description: string;
  /** Added by name; 'default' (the unnamed one) is not. */
  named: boolean;
  mode: PermissionMode;
  /** The MCP scope ceiling of clients on it; null: not exposed over MCP. */
  mcp: string | null;
  active: boolean;
}

export interface ConnectionList {
  active: string;
  /** False when the app was started with a single connection (no switching). */
  canSwitch: boolean;
  connections: ConnectionSummary[];
  /** How each installed engine's URLs are written (the add form's hint). */
  urlForms: { engine: string; forms: string }[];
}

/** What the Add connection form sends; the server tests it before it saves anything. */
export interface NewConnectionForm {
  name: string;
  url: string;
  password?: string;
  mode?: PermissionMode;
}

/** What a test of a new connection found (POST /api/connections). */
export interface ConnectionFound {
  connection: ConnectionSummary;
  found: {
    engine: string;
    description: string;
    tables: number;
    readLayers: { layer: string; active: boolean; detail: string }[];
    notes: string[];
  };
}

/** An MCP client connected through OAuth (GET /api/mcp/clients). */
export interface McpClient {
  id: string;
  clientId: string;
  clientName: string;
  actor: string;
  scope: string;
  profile: string;
  /** 'not finished': consent was given, but the client never redeemed its code. */
  status: 'connected' | 'not finished' | 'expired' | 'revoked';
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** A gated MCP call waiting for the user (GET /api/mcp/approvals). */
export interface McpApproval {
  id: string;
  /** The client's name; the audit log records it as mcp:<client>. */
  client: string;
  tool: string;
  input: unknown;
  tables?: string[];
  mode: PermissionMode;
  reason: string;
  profile: string;
  askedAt: string;
  expiresAt: string;
}

/** Per-row figures of the latest `toolrow eval` run (GET /api/eval/latest); `run` is null before the first. */
export interface EvalLatest {
  run: {
    model: string;
    mode: string;
    runs: number;
    finishedAt: string;
    requests: number;
    passRate: number;
    /** Share of attempts needing a discoverable tool in which the model searched. */
    searchRate: number;
    tools: {
      tool: string;
      attempts: number;
      passRate: number;
      searchRate: number;
      foundRate: number;
      wrongTwinPicks: number;
    }[];
  } | null;
  hint?: string;
}

export interface TableSummary {
  /** schema-qualified when the schema is not public, e.g. "sales.orders"; otherwise the bare name. */
  id: string;
  schema: string;
  name: string;
  rowEstimate: number;
  columnCount: number;
  /** A view's rows are read-only, and its row count unknown. */
  kind?: 'view';
}

export interface ColumnInfo {
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
  /** The database fills it (an identity, a generated column, SQLite's rowid): a new row leaves it out. */
  generated?: boolean;
}

export interface TableInfo {
  id: string;
  schema: string;
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
  indexes: { name: string; columns: string[]; unique: boolean }[];
  foreignKeys: {
    columns: string[];
    references: { table: string; columns: string[] };
    direction: 'out' | 'in';
  }[];
  rowEstimate: number;
  /** Items are schemaless (DynamoDB): an item may have attributes `columns` (a sample) never saw. */
  openColumns?: boolean;
  /** The filter operators the connection's engine serves (absent: all of FILTER_OPS). */
  filterOps?: FilterOp[];
  /** A view: its rows are read-only. */
  kind?: 'view';
}

/** The operators the filter bar offers: the data layer's FILTER_OPS, which the server validates against the schema. */
export const FILTER_OPS = [
  { op: 'eq', label: '=', arity: 1 },
  { op: 'neq', label: '≠', arity: 1 },
  { op: 'lt', label: '<', arity: 1 },
  { op: 'lte', label: '≤', arity: 1 },
  { op: 'gt', label: '>', arity: 1 },
  { op: 'gte', label: '≥', arity: 1 },
  { op: 'contains', label: 'contains', arity: 1 },
  { op: 'starts_with', label: 'starts with', arity: 1 },
  { op: 'ends_with', label: 'ends with', arity: 1 },
  { op: 'ilike', label: 'like (any case)', arity: 1 },
  { op: 'like', label: 'like', arity: 1 },
  { op: 'in', label: 'in list', arity: 1 },
  { op: 'not_in', label: 'not in list', arity: 1 },
  { op: 'between', label: 'between', arity: 2 },
  { op: 'is_null', label: 'is empty', arity: 0 },
  { op: 'is_not_null', label: 'is not empty', arity: 0 },
] as const;

export type FilterOp = (typeof FILTER_OPS)[number]['op'];

export interface FilterCondition {
  column: string;
  op: FilterOp;
  /** A scalar, an array for `in`, a [low, high] pair for `between`; absent for the null tests. */
  value?: unknown;
}

export interface Filter {
  combine: 'and' | 'or';
  conditions: FilterCondition[];
  /**
   * A filter the flat bar cannot show (nested and/or/not, set by the agent), in the data layer's
   * shape. When present it is what applies; `text` describes it. Editing in the bar replaces it.
   */
  raw?: unknown;
  text?: string;
}

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
}

export type Row = Record<string, unknown>;
export type RowKey = Record<string, unknown>;

/** How an engine read a page, where it says (DynamoDB: a Query on a key, or a Scan). */
export interface RowAccess {
  operation: 'Query' | 'Scan' | 'GetItem';
  index?: string;
  keyCondition?: string;
  itemsRead: number;
}

export interface RowsPage {
  rows: Row[];
  offset: number;
  access?: RowAccess;
  /** The columns these rows can be sorted by (DynamoDB: the sort key a Query reads in); absent: any. */
  sortable?: string[];
  /** The sort asked for could not be served under this filter: why (the rows are unsorted). */
  sortDropped?: string;
}

/** How each table was read for a statement (the engine's own words: the contract's type). */
export type { TableRead };

export interface QueryResult {
  columns: string[];
  rows: Row[];
  rowCount: number;
  truncated: boolean;
  elapsedMs: number;
  /** How each table was read, where the engine says (DynamoDB). */
  reads?: TableRead[];
}

export interface QueryPlanResult {
  lines: string[];
  note?: string;
}

export interface ColumnChange {
  column: string;
  /** The column's type, when the schema knows it (values are shown by it: timestamps, numbers). */
  type?: string;
  /** Absent when the row had no value there (an insert, or a DynamoDB attribute the item lacked). */
  before?: unknown;
  /** Absent when the row goes (a delete). */
  after?: unknown;
}

export interface StagedChange {
  id: string;
  kind: 'insert' | 'update' | 'delete';
  table: string;
  key: RowKey | null;
  changes: ColumnChange[];
  stagedBy: string;
  /** Team mode: the person whose change it is (the agent's and an MCP client's are their person's). */
  person?: string;
  stagedAt: string;
  /** Part of a commit whose outcome could not be told: staged again until the user resolves it. */
  uncertainCommit?: number;
}

/** Team mode: what the review needs to commit (the digest of what it shows) and who may. */
export interface StagingReview {
  /** Sent back with Commit: the commit is refused if the changes differ from these. */
  digest: string;
  /** You, as the staging area sees you. */
  you: string;
  /** You are an approver (or admin): you commit others' changes, never your own. */
  approver: boolean;
  /** Whether you may commit all that is listed (an approver, none of it yours). */
  mayCommit: boolean;
  /** Why not, in words, when mayCommit is false. */
  why?: string;
}

/** What protects a table's items between the last check and the write (absent: a row lock). */
export type ChangeProtection = { kind: 'version' | 'check'; attribute?: string; detail: string } | null;

export interface CommitConflict {
  id: string;
  table: string;
  key: RowKey | null;
  reason: string;
  /** The columns whose value is no longer what it was when staged. */
  changedColumns: string[];
  /** The row as it is now (null when it is gone). */
  current: Row | null;
}

export interface ExportJob {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  format: 'csv' | 'json' | 'ndjson';
  source: string;
  rowsDone: number;
  rowsEstimate: number | null;
  fileName: string | null;
  error: string | null;
  createdAt: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  tool: string;
  decision: 'asked' | 'approved' | 'denied' | 'auto';
  decidedBy: string;
  profile: string;
  inputDigest: string;
  /** The call in one plain line; null for entries written before 0.2. */
  summary: string | null;
  detail: string | null;
  /** Team mode: the person it was for. */
  person?: string;
  /** 'staging': a person's commit, discard or resolve of the staging area (no tool of the catalog). */
  action?: 'staging';
}

export type UiTab =
  | { id: string; kind: 'table'; table: string; filter: Filter; sort: SortKey[] }
  | { id: string; kind: 'workbench'; sql: string }
  | { id: string; kind: 'row'; table: string; key: RowKey };

export interface UiState {
  tabs: UiTab[];
  focusedTabId: string | null;
  /** Primary keys of the rows selected in the focused table tab. */
  selection: RowKey[];
}

/** A saved chat conversation, as the list shows it (newest first). */
export interface ConversationSummary {
  id: string;
  /** The first words the user wrote. */
  title: string;
  messageCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface Conversation extends ConversationSummary {
  /** useChat's messages, as they were when the last turn ended. */
  messages: UIMessage[];
}

/** A chip a propose tool emitted: nothing happens until the user clicks it. */
export interface Chip {
  label: string;
  tool: string;
  input: unknown;
}

/** An error the server explained: `message` says what is wrong, `hint` how to fix it. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly hint: string | undefined;
  readonly details: unknown;
  /** The server's error code ('invalid-filter', 'unknown-table', …), when it gave one. */
  readonly code: string | undefined;
  constructor(message: string, status: number, hint?: string, details?: unknown, code?: string) {
    super(message);
    this.status = status;
    this.hint = hint;
    this.details = details;
    this.code = code;
  }
}

/** Team mode: who is signed in (GET /api/session); the single-person app has none. */
export interface TeamSession {
  user: { email: string; name: string };
  role: 'viewer' | 'analyst' | 'approver' | 'admin';
  csrfToken: string;
}

// Team mode: every request that changes something carries the session's CSRF token.
let csrfToken: string | undefined;
let signedIn: TeamSession | null = null;

/** Team mode: the person signed in (known once api.session() answered); null in the single-person app. */
export function teamSession(): TeamSession | null {
  return signedIn;
}

/** The headers a change sends beside its body: the CSRF token once a team session is known. */
export function changeHeaders(): Record<string, string> {
  return csrfToken ? { 'x-csrf-token': csrfToken } : {};
}

/** Team mode: a request the server refused for want of a session sends the browser to sign in. */
function signInAgain(status: number, code: string | undefined): void {
  // (The server reads this file for its wire types, without the DOM's: hence globalThis.)
  const here = (globalThis as { location?: { pathname: string; assign(url: string): void } }).location;
  if (status === 401 && code === 'sign-in' && here)
    here.assign(`/auth/login?return=${encodeURIComponent(here.pathname)}`);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'GET' ? {} : changeHeaders()),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(
      'The Toolrow server is not reachable.',
      0,
      'Is `npm start` still running? Restart it and reload this page.',
    );
  }
  const text = await response.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const error = (
      data && typeof data === 'object' && 'error' in data ? (data as { error: unknown }).error : data
    ) as { message?: string; hint?: string; details?: unknown; code?: string } | string | null;
    if (error && typeof error === 'object') {
      signInAgain(response.status, error.code);
      throw new ApiError(
        error.message ?? `HTTP ${response.status}`,
        response.status,
        error.hint,
        error.details,
        error.code,
      );
    }
    throw new ApiError(
      typeof error === 'string' && error ? error : `HTTP ${response.status}`,
      response.status,
    );
  }
  return data as T;
}

const table = (id: string) => `/api/tables/${encodeURIComponent(id)}`;

export const api = {
  /** Team mode's session (and its CSRF token kept for every change); null in the single-person app. */
  session: async (): Promise<TeamSession | null> => {
    const response = await fetch('/api/session');
    if (!response.ok) return null;
    const session = (await response.json().catch(() => null)) as TeamSession | null;
    if (!session?.csrfToken) return null;
    csrfToken = session.csrfToken;
    signedIn = session;
    return session;
  },
  signOut: () => request<{ signedOut: boolean }>('POST', '/auth/logout'),
  status: () => request<AppStatus>('GET', '/api/status'),
  connections: () => request<ConnectionList>('GET', '/api/connections'),
  addConnection: (form: NewConnectionForm) => request<ConnectionFound>('POST', '/api/connections', form),
  switchConnection: (name: string) => request<{ active: string }>('PUT', '/api/connections/active', { name }),
  evalLatest: () => request<EvalLatest>('GET', '/api/eval/latest'),
  modelSettings: () => request<ModelSettingsView>('GET', '/api/settings/model'),
  saveModel: (choice: ModelChoice) => request<ModelSettingsView>('PUT', '/api/settings/model', choice),
  clearModel: () => request<ModelSettingsView>('DELETE', '/api/settings/model'),
  listModels: (choice: ModelChoice) =>
    request<{ models: { id: string; name?: string }[] }>('POST', '/api/settings/model/models', choice),
  testModel: (choice: ModelChoice) => request<ModelTestResult>('POST', '/api/settings/model/test', choice),
  setMode: (mode: PermissionMode) => request<{ mode: PermissionMode }>('PUT', '/api/profile', { mode }),
  /** `empty`: with no tables, why the connection may show none and how to seed this one. */
  /** `fresh`: read the catalog again (a table made elsewhere since), not the cached one. */
  tables: (fresh = false) =>
    request<{ tables: TableSummary[]; empty?: { notes: string[]; seed: string } }>(
      'GET',
      fresh ? '/api/tables?fresh=1' : '/api/tables',
    ),
  describe: (id: string) => request<TableInfo>('GET', table(id)),
  rows: (id: string, query: { filter: Filter; sort: SortKey[]; offset: number; limit: number }) =>
    request<RowsPage>('POST', `${table(id)}/rows`, query),
  count: (id: string, filter: Filter) => request<{ count: number }>('POST', `${table(id)}/count`, { filter }),
  row: (id: string, key: RowKey) => request<{ row: Row | null }>('POST', `${table(id)}/row`, { key }),
  /** `maxItemsRead`: the person confirmed a read past the connection's bound. */
  query: (sql: string, language?: string, maxItemsRead?: number) =>
    request<QueryResult>('POST', '/api/query', {
      sql,
      ...(language ? { language } : {}),
      ...(maxItemsRead ? { maxItemsRead } : {}),
    }),
  queryPlan: (sql: string, language?: string) =>
    request<QueryPlanResult>('POST', '/api/query/plan', { sql, ...(language ? { language } : {}) }),
  staging: () =>
    request<{
      changes: StagedChange[];
      maxPerTransaction?: number;
      protection?: Record<string, ChangeProtection>;
      review?: StagingReview;
    }>('GET', '/api/staging'),
  resolveCommit: (commit: number, outcome: 'applied' | 'staged') =>
    request<{ resolved: number }>('POST', '/api/staging/resolve', { commit, outcome }),
  /** `seen`: what the person saw of the edited columns; a value written since is refused, not overwritten. */
  stageUpdate: (id: string, key: RowKey, values: Row, seen?: Row) =>
    request<{ ids: string[] }>('POST', '/api/staging/update', {
      table: id,
      key,
      values,
      ...(seen ? { seen } : {}),
    }),
  stageDelete: (id: string, keys: RowKey[], seen?: Row[]) =>
    request<{ ids: string[] }>('POST', '/api/staging/delete', { table: id, keys, ...(seen ? { seen } : {}) }),
  /** Changes whenever the staging area does (anyone's stage, commit or discard). */
  stagingVersion: () => request<{ version: string }>('GET', '/api/staging/version'),
  stageInsert: (id: string, rows: Row[]) =>
    request<{ ids: string[] }>('POST', '/api/staging/insert', { table: id, rows }),
  /** `reviewed`: team mode's review digest (StagingReview.digest) of the listing the approver saw. */
  commit: (ids?: string[], options: { inParts?: boolean; reviewed?: string } = {}) =>
    request<{ committed: number; conflicts: CommitConflict[]; parts?: number }>(
      'POST',
      '/api/staging/commit',
      {
        ...(ids ? { ids } : {}),
        ...(options.inParts ? { inParts: true } : {}),
        ...(options.reviewed ? { reviewed: options.reviewed } : {}),
      },
    ),
  checkStaged: (ids?: string[]) =>
    request<{ conflicts: CommitConflict[] }>('POST', '/api/staging/check', ids ? { ids } : {}),
  discard: (ids?: string[]) =>
    request<{ discarded: number }>('POST', '/api/staging/discard', ids ? { ids } : {}),
  exports: () => request<{ jobs: ExportJob[] }>('GET', '/api/exports'),
  startExport: (
    body:
      | { table: string; filter: Filter; sort: SortKey[]; format: ExportJob['format'] }
      | { sql: string; format: ExportJob['format'] },
  ) => request<ExportJob>('POST', '/api/exports', body),
  exportJob: (id: string) => request<ExportJob>('GET', `/api/exports/${encodeURIComponent(id)}`),
  cancelExport: (id: string) =>
    request<ExportJob>('POST', `/api/exports/${encodeURIComponent(id)}/cancel`, {}),
  downloadUrl: (id: string) => `/api/exports/${encodeURIComponent(id)}/download`,
  audit: (limit = 200) => request<{ entries: AuditEntry[] }>('GET', `/api/audit?limit=${limit}`),
  uiState: () => request<UiState>('GET', '/api/ui-state'),
  saveUiState: (state: UiState) => request<UiState>('PUT', '/api/ui-state', state),
  conversations: (limit = 20) =>
    request<{ conversations: ConversationSummary[] }>('GET', `/api/conversations?limit=${limit}`),
  conversation: (id: string) => request<Conversation>('GET', `/api/conversations/${encodeURIComponent(id)}`),
  // A body, so the request carries the JSON content type the server's guard requires of writes.
  deleteConversation: (id: string) =>
    request<{ deleted: string }>('DELETE', `/api/conversations/${encodeURIComponent(id)}`, {}),
  mcpClients: () => request<{ clients: McpClient[] }>('GET', '/api/mcp/clients'),
  revokeMcpClient: (id: string) =>
    request<{ revoked: McpClient[] }>('POST', `/api/mcp/clients/${encodeURIComponent(id)}/revoke`, {}),
  mcpApprovals: () => request<{ pending: McpApproval[] }>('GET', '/api/mcp/approvals'),
  answerMcpApproval: (id: string, approved: boolean, reason?: string) =>
    request<{ ok: true }>('POST', `/api/mcp/approvals/${encodeURIComponent(id)}`, {
      approved,
      ...(reason ? { reason } : {}),
    }),
  /** One tool run as the user, as `toolrow call` runs it through the app. */
  callTool: (name: string, input: unknown) =>
    request<{ output: unknown }>('POST', `/api/tools/${encodeURIComponent(name)}`, { input }),
  /** Saves a chart with the saved specs (a query with its chart), after the server drew it. */
  saveChart: (name: string, sql: string, chart: Record<string, unknown>) =>
    request<{ name: string }>('POST', '/api/specs/charts', { name, sql, chart }),
  acceptChip: (chip: Chip) =>
    request<{ uiState: UiState; output: unknown }>('POST', '/api/chips/accept', chip),
};
