import type { Actor, Filter, RowKey, Sort } from '@toolrow/datasource';

// ── Profiles and the ladder's memory ─────────────────────────────────────────────────────────

export const PERMISSION_MODES = ['manual', 'auto', 'full-auto'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface Profile {
  name: string;
  mode: PermissionMode;
  createdAt: Date;
}

/** A remembered "yes" for one tool on one table (table '*' for tools that touch no table). */
/** Who a remembered grant belongs to: the chat agent of a profile, or one MCP client. */
export type Grantee = Exclude<Actor, 'user'>;

export interface Grant {
  profile: string;
  /** Who the grant is for: the chat agent ('agent') or one MCP client ('mcp:<name>'). */
  grantee: Grantee;
  tool: string;
  table: string;
  grantedAt: Date;
  grantedBy: Actor;
}

// ── UI state per profile ─────────────────────────────────────────────────────────────────────

/** What a table tab shows: table + filter + sort (the "active view" when the tab is focused). */
export interface TableView {
  table: string;
  filter?: Filter;
  sort?: Sort[];
}

export type Tab =
  | ({ id: string; kind: 'table'; title?: string } & TableView)
  | { id: string; kind: 'workbench'; title?: string; sql: string }
  | { id: string; kind: 'row'; title?: string; table: string; key: RowKey };

export interface Selection {
  /** The tab the selection belongs to. */
  tabId: string;
  table: string;
  /** Primary keys of the selected rows. */
  keys: RowKey[];
}

export interface UiState {
  profile: string;
  tabs: Tab[];
  focusedTabId: string | null;
  selection: Selection | null;
  updatedAt: Date;
}

// ── Saved specs, history, audit ──────────────────────────────────────────────────────────────

/** A named, saved view or query the user can come back to. */
export interface SavedSpec {
  name: string;
  kind: 'view' | 'query' | 'export';
  description: string | null;
  /** For kind 'view': a TableView; 'query': { sql }; 'export': the export source + format. */
  spec: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface QueryHistoryEntry {
  id: number;
  profile: string;
  actor: Actor;
  sql: string;
  rowCount: number | null;
  durationMs: number | null;
  /** The error message when the statement failed. */
  error: string | null;
  createdAt: Date;
}

export const AUDIT_DECISIONS = ['asked', 'approved', 'denied', 'auto'] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

export interface AuditEntry {
  id: number;
  tool: string;
  /** sha-256 hex of the tool input's canonical JSON (see digestInput). */
  inputDigest: string;
  decision: AuditDecision;
  /** 'user', 'agent' (the ladder decided), or 'mcp:<token name>'. */
  decidedBy: Actor;
  profile: string;
  /** The table the call concerns, when there is one. */
  table: string | null;
  /** A short free-text reason ("remembered grant", "mode full-auto", …). */
  detail: string | null;
  /** Team mode: the person it was for (their email); null in single-person mode. */
  person: string | null;
  /** The call in one plain line ('Start export of orders where … as CSV'); null in entries older than 0.2. */
  summary: string | null;
  createdAt: Date;
}

// ── Attachments, connections, MCP tokens ─────────────────────────────────────────────────────

export interface Attachment {
  id: string;
  profile: string;
  name: string;
  mediaType: string;
  sizeBytes: number;
  createdAt: Date;
}

export interface AttachmentWithContent extends Attachment {
  content: Uint8Array;
}

export interface ConnectionInfo {
  name: string;
  /** The driver it connects through ('pglite', 'postgres', 'dynamodb': an installed engine's). */
  engine: string;
  /** Where it points, without secrets (no password). */
  description: string;
  /** The connection this process is using. */
  active: boolean;
  /** A connection the user added by name (`toolrow connections add`); the unnamed one is not. */
  named?: boolean;
  /** Named connections: the URL without its password. */
  url?: string;
  /** The MCP scope ceiling of clients on this connection; null: not exposed over MCP. */
  mcpScope?: string | null;
  /** The connection commands use when none is named (`toolrow connections use`). */
  isDefault?: boolean;
}

/** A named connection to add: where it points (no password) and its MCP exposure. */
export interface NewConnection {
  name: string;
  /** The driver it connects through (an installed engine's). */
  engine: string;
  url: string;
  description: string;
  /** The MCP scope ceiling; null or absent: not exposed (the default). */
  mcpScope?: string | null;
}

export interface McpToken {
  id: number;
  name: string;
  /** sha-256 hex of the token; the token itself is shown once, at creation, and never stored. */
  tokenHash: string;
  scope: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** The user trusted this client to ask its own user (MCP elicitation) when the ladder asks. */
  askViaClient: boolean;
  /**
   * The connection the token was made for: it is served there and nowhere else. Null for a token
   * made before tokens were bound (served on whichever connection the server it reaches serves).
   */
  connection: string | null;
  /** Team mode: the person it belongs to; null in single-person mode. */
  person: string | null;
}

export type TokenCheck =
  | { ok: true; token: McpToken }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked'; token?: McpToken };

// ── OAuth (Toolrow as the MCP endpoint's authorization server) ─────────────────────────────────

/** A client that may ask for consent: registered (RFC 7591) or named by its metadata document URL. */
export interface OAuthClient {
  /** The client_id: random for a registered client, the https URL of a metadata-document client. */
  id: string;
  kind: 'registered' | 'metadata-document';
  /** client_name as the client gave it (shown on the consent page). */
  name: string;
  redirectUris: string[];
  /** The registration or metadata document as accepted. */
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/** One consent: a client connected at a scope, for a profile and a resource, until expiry or revocation. */
export interface OAuthGrant {
  id: string;
  clientId: string;
  clientName: string;
  scope: string;
  profile: string;
  /** The RFC 8707 resource (the MCP endpoint URL) its tokens are bound to. */
  resource: string;
  /** The audit actor is mcp:<actorName>. */
  actorName: string;
  /** The user trusted the client to ask its own user when the ladder asks (MCP elicitation). */
  askViaClient: boolean;
  createdAt: Date;
  /** When the connection ends (its refresh tokens stop); null lasts until revoked. */
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  lastUsedAt: Date | null;
  /** Team mode: the person who consented; null in single-person mode. */
  person: string | null;
  /**
   * Whether the client ever got tokens for it (redeemed its code). Set by listGrants; a grant
   * whose code was never redeemed is a consent the client did not finish.
   */
  tokensIssued?: boolean;
}

export type OAuthCodeRedemption =
  | { ok: true; grant: OAuthGrant; redirectUri: string; codeChallenge: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'replayed' | 'revoked' };

export interface OAuthTokenPair {
  accessToken: string;
  accessExpiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date | null;
  grant: OAuthGrant;
}

export type OAuthRefresh =
  | { ok: true; tokens: OAuthTokenPair }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'wrong-client'; grant?: OAuthGrant };

export type OAuthAccessCheck =
  | { ok: true; grant: OAuthGrant; expiresAt: Date }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked'; grant?: OAuthGrant };

// ── Conversations ────────────────────────────────────────────────────────────────────────────

/**
 * One message of a stored conversation: the AI SDK's UIMessage as the chat holds it (text, tool
 * parts with their inputs, outputs and approvals, chips, metadata). Stored verbatim as JSON.
 */
export interface ConversationMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: unknown[];
  metadata?: unknown;
}

/** A conversation without its messages, as lists show it. */
export interface ConversationSummary {
  id: string;
  profile: string;
  /** The first words the user wrote (or the title it was saved with). */
  title: string;
  messageCount: number;
  createdAt: Date;
  /** When its messages were last saved. */
  updatedAt: Date;
}

export interface Conversation extends ConversationSummary {
  messages: ConversationMessage[];
}

/**
 * A language model chosen in the app's Settings, per profile. Never a secret: an API key is kept
 * encrypted by writeModelKey, and AWS credentials stay in the AWS profile it names.
 */
export interface ModelSetting {
  provider: 'bedrock' | 'openai-compatible' | 'anthropic' | 'openai';
  modelId: string;
  /** OpenAI-compatible servers: the base URL (http://127.0.0.1:11434/v1). */
  baseURL?: string;
  /** Bedrock: the region the model is enabled in. */
  region?: string;
  /** Bedrock: the AWS profile whose credentials to use (default: the standard chain). */
  awsProfile?: string;
}

export interface SavedModel {
  profile: string;
  setting: ModelSetting;
  updatedAt: Date;
}
