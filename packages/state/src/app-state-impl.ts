import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type Actor,
  APP_SCHEMA,
  type Database,
  DataSourceError,
  DEFAULT_PROFILE,
  didYouMean,
  type ExportJob,
  isActor,
  nearestNames,
  type Row,
} from '@toolrow/datasource';
import type { AppState, ListOptions } from './app-state.ts';
import {
  type Attachment,
  AUDIT_DECISIONS,
  type AuditEntry,
  type ConnectionInfo,
  type ConversationMessage,
  type ConversationSummary,
  type Grant,
  type Grantee,
  type McpToken,
  PERMISSION_MODES,
  type PermissionMode,
  type Profile,
  type QueryHistoryEntry,
  type SavedSpec,
  type UiState,
} from './app-types.ts';
import { createOAuthStore, writeGrantLastUse } from './oauth-store.ts';
import { createLastUse, createVerifyCache } from './verify-cache.ts';

const S = APP_SCHEMA;

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? JSON.stringify(value.toString()) : JSON.stringify(value);
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** sha-256 hex of the canonical JSON of a tool input (object keys sorted), for the audit log. */
export function digestInput(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** sha-256 hex of an MCP bearer token, as stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function limitOf(options: ListOptions | undefined): { limit: number; offset: number } {
  const limit = Math.min(Math.max(Math.trunc(options?.limit ?? 50), 1), 1000);
  const offset = Math.max(Math.trunc(options?.offset ?? 0), 0);
  return { limit, offset };
}

function checkActor(actor: string, field: string): Actor {
  if (!isActor(actor)) {
    throw new DataSourceError(
      'misuse',
      `${field} must be 'user', 'agent' or 'mcp:<token name>', got '${actor}'.`,
    );
  }
  return actor;
}

function checkGrantee(grantee: string): Grantee {
  if (grantee === 'user' || !isActor(grantee)) {
    throw new DataSourceError(
      'misuse',
      `A grant belongs to 'agent' (the chat) or one MCP client ('mcp:<name>'), got '${grantee}'.`,
    );
  }
  return grantee as Grantee;
}

function date(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

function dateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : date(value);
}

const toProfile = (row: Row): Profile => ({
  name: row.name as string,
  mode: row.mode as PermissionMode,
  createdAt: date(row.created_at),
});

const toGrant = (row: Row): Grant => ({
  profile: row.profile as string,
  grantee: row.grantee as Grantee,
  tool: row.tool as string,
  table: row.table_name as string,
  grantedBy: row.granted_by as Actor,
  grantedAt: date(row.granted_at),
});

const toSpec = (row: Row): SavedSpec => ({
  name: row.name as string,
  kind: row.kind as SavedSpec['kind'],
  description: (row.description as string | null) ?? null,
  spec: row.spec as Record<string, unknown>,
  createdAt: date(row.created_at),
  updatedAt: date(row.updated_at),
});

const toHistory = (row: Row): QueryHistoryEntry => ({
  id: Number(row.id),
  profile: row.profile as string,
  actor: row.actor as Actor,
  sql: row.sql as string,
  rowCount: row.row_count === null ? null : Number(row.row_count),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  error: (row.error as string | null) ?? null,
  createdAt: date(row.created_at),
});

const toAudit = (row: Row): AuditEntry => ({
  id: Number(row.id),
  tool: row.tool as string,
  inputDigest: row.input_digest as string,
  decision: row.decision as AuditEntry['decision'],
  decidedBy: row.decided_by as Actor,
  profile: row.profile as string,
  table: (row.table_name as string | null) ?? null,
  detail: (row.detail as string | null) ?? null,
  createdAt: date(row.created_at),
});

export const toExportJob = (row: Row): ExportJob => ({
  id: row.id as string,
  profile: row.profile as string,
  actor: row.actor as Actor,
  state: row.state as ExportJob['state'],
  format: row.format as ExportJob['format'],
  path: row.path as string,
  source: row.source as Record<string, unknown>,
  rowsDone: Number(row.rows_done),
  rowsEstimate: row.rows_estimate === null ? null : Number(row.rows_estimate),
  bytesWritten: Number(row.bytes_written),
  error: (row.error as string | null) ?? null,
  createdAt: date(row.created_at),
  startedAt: dateOrNull(row.started_at),
  finishedAt: dateOrNull(row.finished_at),
});

const toAttachment = (row: Row): Attachment => ({
  id: row.id as string,
  profile: row.profile as string,
  name: row.name as string,
  mediaType: row.media_type as string,
  sizeBytes: Number(row.size_bytes),
  createdAt: date(row.created_at),
});

const toToken = (row: Row): McpToken => ({
  id: Number(row.id),
  name: row.name as string,
  tokenHash: row.token_hash as string,
  scope: row.scope as string,
  createdAt: date(row.created_at),
  expiresAt: dateOrNull(row.expires_at),
  revokedAt: dateOrNull(row.revoked_at),
  lastUsedAt: dateOrNull(row.last_used_at),
  askViaClient: row.ask_via_client === true,
});

const toConversationSummary = (row: Row): ConversationSummary => ({
  id: row.id as string,
  profile: row.profile as string,
  title: row.title as string,
  messageCount: Number(row.message_count),
  createdAt: date(row.created_at),
  updatedAt: date(row.updated_at),
});

/** What a conversation id may be: ids useChat generates and UUIDs fit; nothing needs escaping in a URL. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const TITLE_MAX = 80;
const UNTITLED = 'New conversation';
// A guard against a runaway history, far above what a chat holds (tool outputs are capped).
const CONVERSATION_MAX_CHARS = 64 * 1024 * 1024;

/** The first words of the first user message: what the user asked, cut at a word near 80 characters. */
export function conversationTitle(messages: readonly ConversationMessage[]): string {
  const first = messages.find((message) => message.role === 'user');
  const text = (first?.parts ?? [])
    .map((part) =>
      part && typeof part === 'object' && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return UNTITLED;
  if (text.length <= TITLE_MAX) return text;
  const cut = text.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function checkConversationId(id: unknown): string {
  if (typeof id !== 'string' || !CONVERSATION_ID_PATTERN.test(id)) {
    throw new DataSourceError(
      'misuse',
      `Conversation id ${JSON.stringify(id)} is not allowed: use 1–128 letters, digits, '_' or '-', starting with a letter or digit.`,
    );
  }
  return id;
}

function checkMessages(messages: unknown): ConversationMessage[] {
  if (!Array.isArray(messages)) {
    throw new DataSourceError('misuse', 'messages must be an array of UI messages ({ id, role, parts }).');
  }
  messages.forEach((message: unknown, index) => {
    const m = message as Partial<ConversationMessage> | null;
    if (
      !m ||
      typeof m !== 'object' ||
      typeof m.id !== 'string' ||
      !['system', 'user', 'assistant'].includes(m.role as string) ||
      !Array.isArray(m.parts)
    ) {
      throw new DataSourceError(
        'misuse',
        `messages[${index}] is not a UI message: it needs a string id, a role (system, user or assistant) and a parts array.`,
      );
    }
  });
  return messages as ConversationMessage[];
}

function emptyUi(profile: string): UiState {
  return { profile, tabs: [], focusedTabId: null, selection: null, updatedAt: new Date(0) };
}

export interface AppStateOptions {
  /** The connection this process uses, listed as active by connections.list(). */
  activeConnection: Omit<ConnectionInfo, 'active'>;
  /** How long a verified bearer token is trusted without a query (default VERIFY_CACHE_TTL_MS). */
  verifyCacheTtlMs?: number;
}

export function createAppState(db: Database, options: AppStateOptions): AppState {
  const ensureProfile = async (name: string = DEFAULT_PROFILE): Promise<Profile> => {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new DataSourceError('misuse', 'A profile name must be a non-empty string.');
    }
    const result = await db.query(
      `INSERT INTO ${S}.profiles (name) VALUES ($1)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
       RETURNING name, mode, created_at`,
      [name],
    );
    return toProfile(result.rows[0]!);
  };

  // One cache for both kinds of bearer token: any revocation clears it.
  const cache = createVerifyCache<unknown>(options.verifyCacheTtlMs);
  const tokenLastUse = createLastUse<number>(async (stamps) => {
    await db.transaction(async (tx) => {
      for (const [id, at] of stamps) {
        await tx.query(
          `UPDATE ${S}.mcp_tokens SET last_used_at = GREATEST(coalesce(last_used_at, $2), $2) WHERE id = $1`,
          [id, at],
        );
      }
    });
  });
  const grantLastUse = createLastUse<string>((stamps) => writeGrantLastUse(db, stamps));
  const flushLastUse = async () => {
    await Promise.all([tokenLastUse.flush(), grantLastUse.flush()]);
  };

  const app: AppState = {
    flushLastUse,
    oauth: createOAuthStore({ db, cache, lastUse: grantLastUse }),
    profiles: {
      ensure: ensureProfile,
      async list() {
        return (await db.query(`SELECT name, mode, created_at FROM ${S}.profiles ORDER BY name`)).rows.map(
          toProfile,
        );
      },
      async setMode(name, mode) {
        if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
          throw new DataSourceError(
            'misuse',
            `Permission mode must be one of ${PERMISSION_MODES.join(', ')}, got '${mode}'.`,
          );
        }
        await ensureProfile(name);
        const result = await db.query(
          `UPDATE ${S}.profiles SET mode = $2 WHERE name = $1 RETURNING name, mode, created_at`,
          [name, mode],
        );
        return toProfile(result.rows[0]!);
      },
      async grants(profile, grantee) {
        if (grantee !== undefined) checkGrantee(grantee);
        const result = await db.query(
          `SELECT profile, grantee, tool, table_name, granted_by, granted_at FROM ${S}.grants
           WHERE profile = $1 AND ($2::text IS NULL OR grantee = $2) ORDER BY grantee, tool, table_name`,
          [profile, grantee ?? null],
        );
        return result.rows.map(toGrant);
      },
      async hasGrant(profile, grantee, tool, table) {
        checkGrantee(grantee);
        const result = await db.query(
          `SELECT 1 FROM ${S}.grants WHERE profile = $1 AND grantee = $2 AND tool = $3 AND table_name IN ($4, '*')`,
          [profile, grantee, tool, table],
        );
        return result.rows.length > 0;
      },
      async addGrant(grant) {
        checkActor(grant.grantedBy, 'grantedBy');
        checkGrantee(grant.grantee);
        await ensureProfile(grant.profile);
        const result = await db.query(
          `INSERT INTO ${S}.grants (profile, grantee, tool, table_name, granted_by) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (profile, grantee, tool, table_name) DO UPDATE SET granted_by = EXCLUDED.granted_by, granted_at = now()
           RETURNING profile, grantee, tool, table_name, granted_by, granted_at`,
          [grant.profile, grant.grantee, grant.tool, grant.table, grant.grantedBy],
        );
        return toGrant(result.rows[0]!);
      },
      async revokeGrants(profile, match = {}) {
        if (match.grantee !== undefined) checkGrantee(match.grantee);
        const result = await db.query(
          `DELETE FROM ${S}.grants WHERE profile = $1 AND ($2::text IS NULL OR grantee = $2)
             AND ($3::text IS NULL OR tool = $3) AND ($4::text IS NULL OR table_name = $4)`,
          [profile, match.grantee ?? null, match.tool ?? null, match.table ?? null],
        );
        return result.rowCount;
      },
      async revokeGranteeGrants(grantee) {
        checkGrantee(grantee);
        return (await db.query(`DELETE FROM ${S}.grants WHERE grantee = $1`, [grantee])).rowCount;
      },
    },

    ui: {
      async get(profile = DEFAULT_PROFILE) {
        const result = await db.query(
          `SELECT profile, tabs, focused_tab_id, selection, updated_at FROM ${S}.ui_state WHERE profile = $1`,
          [profile],
        );
        const row = result.rows[0];
        if (!row) return emptyUi(profile);
        return {
          profile,
          tabs: row.tabs as UiState['tabs'],
          focusedTabId: (row.focused_tab_id as string | null) ?? null,
          selection: (row.selection as UiState['selection']) ?? null,
          updatedAt: date(row.updated_at),
        };
      },
      async update(profile, patch) {
        return db.transaction(async (tx) => {
          const current = await tx.query(
            `SELECT tabs, focused_tab_id, selection FROM ${S}.ui_state WHERE profile = $1 FOR UPDATE`,
            [profile],
          );
          const row = current.rows[0];
          const tabs = patch.tabs ?? (row?.tabs as UiState['tabs'] | undefined) ?? [];
          if (!Array.isArray(tabs)) throw new DataSourceError('misuse', 'tabs must be an array of tabs.');
          const ids = new Set<string>();
          for (const tab of tabs) {
            if (ids.has(tab.id))
              throw new DataSourceError(
                'misuse',
                `Two tabs share the id '${tab.id}'; tab ids must be unique.`,
              );
            ids.add(tab.id);
          }
          let focused =
            patch.focusedTabId !== undefined
              ? patch.focusedTabId
              : ((row?.focused_tab_id as string | null) ?? null);
          if (patch.focusedTabId !== undefined && focused !== null && !ids.has(focused)) {
            throw new DataSourceError(
              'misuse',
              `focusedTabId '${focused}' is not an open tab; open tabs: ${[...ids].join(', ') || 'none'}.`,
            );
          }
          // A tab that closed takes focus and selection with it.
          if (focused !== null && !ids.has(focused)) focused = null;
          let selection =
            patch.selection !== undefined
              ? patch.selection
              : ((row?.selection as UiState['selection']) ?? null);
          if (selection && !ids.has(selection.tabId)) selection = null;
          const written = await tx.query(
            `INSERT INTO ${S}.ui_state (profile, tabs, focused_tab_id, selection, updated_at)
             VALUES ($1, $2::jsonb, $3, $4::jsonb, now())
             ON CONFLICT (profile) DO UPDATE SET tabs = EXCLUDED.tabs, focused_tab_id = EXCLUDED.focused_tab_id,
               selection = EXCLUDED.selection, updated_at = now()
             RETURNING updated_at`,
            [profile, JSON.stringify(tabs), focused, selection === null ? null : JSON.stringify(selection)],
          );
          return {
            profile,
            tabs,
            focusedTabId: focused,
            selection,
            updatedAt: date(written.rows[0]!.updated_at),
          };
        });
      },
    },

    specs: {
      async list() {
        return (await db.query(`SELECT * FROM ${S}.saved_specs ORDER BY name`)).rows.map(toSpec);
      },
      async get(name) {
        const result = await db.query(`SELECT * FROM ${S}.saved_specs WHERE name = $1`, [name]);
        const row = result.rows[0];
        if (row) return toSpec(row);
        const names = (
          await db.query<{ name: string }>(`SELECT name FROM ${S}.saved_specs ORDER BY name`)
        ).rows.map((spec) => spec.name);
        throw new DataSourceError(
          'not-found',
          `No saved spec named '${name}'.${didYouMean(nearestNames(name, names))} ${
            names.length > 0
              ? `Saved specs: ${names.slice(0, 20).join(', ')}.`
              : 'There are no saved specs yet.'
          }`,
        );
      },
      async save(spec) {
        if (!['view', 'query', 'export'].includes(spec.kind)) {
          throw new DataSourceError(
            'misuse',
            `A saved spec's kind is view, query or export, got '${spec.kind}'.`,
          );
        }
        const result = await db.query(
          `INSERT INTO ${S}.saved_specs (name, kind, description, spec) VALUES ($1, $2, $3, $4::jsonb)
           ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, description = EXCLUDED.description,
             spec = EXCLUDED.spec, updated_at = now()
           RETURNING *`,
          [spec.name, spec.kind, spec.description ?? null, JSON.stringify(spec.spec)],
        );
        return toSpec(result.rows[0]!);
      },
      async delete(name) {
        return (await db.query(`DELETE FROM ${S}.saved_specs WHERE name = $1`, [name])).rowCount > 0;
      },
    },

    history: {
      async add(entry) {
        checkActor(entry.actor, 'actor');
        const result = await db.query(
          `INSERT INTO ${S}.query_history (profile, actor, sql, row_count, duration_ms, error)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
          [entry.profile, entry.actor, entry.sql, entry.rowCount, entry.durationMs, entry.error],
        );
        return toHistory(result.rows[0]!);
      },
      async list(options) {
        const { limit, offset } = limitOf(options);
        const result = await db.query(
          `SELECT * FROM ${S}.query_history WHERE ($1::text IS NULL OR profile = $1) AND ($4::text IS NULL OR actor = $4)
           ORDER BY id DESC LIMIT $2 OFFSET $3`,
          [options?.profile ?? null, limit, offset, options?.actor ?? null],
        );
        return result.rows.map(toHistory);
      },
    },

    audit: {
      async record(entry) {
        checkActor(entry.decidedBy, 'decidedBy');
        if (!(AUDIT_DECISIONS as readonly string[]).includes(entry.decision)) {
          throw new DataSourceError(
            'misuse',
            `decision must be one of ${AUDIT_DECISIONS.join(', ')}, got '${entry.decision}'.`,
          );
        }
        const result = await db.query(
          `INSERT INTO ${S}.audit_log (tool, input_digest, decision, decided_by, profile, table_name, detail)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
          [
            entry.tool,
            digestInput(entry.input),
            entry.decision,
            entry.decidedBy,
            entry.profile,
            entry.table ?? null,
            entry.detail ?? null,
          ],
        );
        return toAudit(result.rows[0]!);
      },
      async list(options) {
        const { limit, offset } = limitOf(options);
        const result = await db.query(
          `SELECT * FROM ${S}.audit_log
           WHERE ($1::text IS NULL OR profile = $1) AND ($2::text IS NULL OR tool = $2) AND ($3::text IS NULL OR decision = $3)
             AND ($6::text IS NULL OR decided_by = $6)
           ORDER BY id DESC LIMIT $4 OFFSET $5`,
          [
            options?.profile ?? null,
            options?.tool ?? null,
            options?.decision ?? null,
            limit,
            offset,
            options?.actor ?? null,
          ],
        );
        return result.rows.map(toAudit);
      },
    },

    exportJobs: {
      async get(id) {
        const result = await db.query(`SELECT * FROM ${S}.export_jobs WHERE id = $1`, [id]);
        const row = result.rows[0];
        if (!row) {
          throw new DataSourceError(
            'not-found',
            `No export job with id '${id}'. List the jobs to see their ids.`,
          );
        }
        return toExportJob(row);
      },
      async list(options) {
        const { limit, offset } = limitOf(options);
        const result = await db.query(
          `SELECT * FROM ${S}.export_jobs WHERE ($1::text IS NULL OR profile = $1) AND ($4::text IS NULL OR actor = $4)
           ORDER BY seq DESC LIMIT $2 OFFSET $3`,
          [options?.profile ?? null, limit, offset, options?.actor ?? null],
        );
        return result.rows.map(toExportJob);
      },
    },

    attachments: {
      async add(attachment) {
        const content =
          typeof attachment.content === 'string'
            ? new TextEncoder().encode(attachment.content)
            : attachment.content;
        const result = await db.query(
          `INSERT INTO ${S}.attachments (id, profile, name, media_type, content) VALUES ($1, $2, $3, $4, $5)
           RETURNING id, profile, name, media_type, octet_length(content) AS size_bytes, created_at`,
          [
            randomUUID(),
            attachment.profile ?? DEFAULT_PROFILE,
            attachment.name,
            attachment.mediaType,
            content,
          ],
        );
        return toAttachment(result.rows[0]!);
      },
      async get(idOrName, profile = DEFAULT_PROFILE) {
        const result = await db.query(
          `SELECT id, profile, name, media_type, octet_length(content) AS size_bytes, created_at, content
           FROM ${S}.attachments WHERE id = $1 OR (name = $1 AND profile = $2)
           ORDER BY (id = $1) DESC, seq DESC LIMIT 1`,
          [idOrName, profile],
        );
        const row = result.rows[0];
        if (!row) {
          const names = (
            await db.query<{ name: string }>(
              `SELECT DISTINCT name FROM ${S}.attachments WHERE profile = $1 ORDER BY name`,
              [profile],
            )
          ).rows.map((item) => item.name);
          throw new DataSourceError(
            'not-found',
            `No attachment '${idOrName}'.${didYouMean(nearestNames(idOrName, names))} ${
              names.length > 0
                ? `Attached: ${names.slice(0, 20).join(', ')}.`
                : 'Nothing is attached to this chat.'
            }`,
          );
        }
        const raw = row.content as Uint8Array;
        return { ...toAttachment(row), content: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) };
      },
      async list(profile = DEFAULT_PROFILE) {
        const result = await db.query(
          `SELECT id, profile, name, media_type, octet_length(content) AS size_bytes, created_at
           FROM ${S}.attachments WHERE profile = $1 ORDER BY seq DESC`,
          [profile],
        );
        return result.rows.map(toAttachment);
      },
      async delete(id) {
        return (await db.query(`DELETE FROM ${S}.attachments WHERE id = $1`, [id])).rowCount > 0;
      },
    },

    connections: {
      async list() {
        const result = await db.query(`SELECT name, engine, description FROM ${S}.connections ORDER BY name`);
        const active = options.activeConnection;
        const rows: ConnectionInfo[] = result.rows.map((row) => ({
          name: row.name as string,
          engine: row.engine as ConnectionInfo['engine'],
          description: row.description as string,
          active: row.name === active.name,
        }));
        if (!rows.some((row) => row.active)) rows.unshift({ ...active, active: true });
        return rows;
      },
      async save(connection) {
        if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(connection.description)) {
          throw new DataSourceError(
            'misuse',
            'A connection description must not hold a password; describe it as user@host:port/db.',
          );
        }
        await db.query(
          `INSERT INTO ${S}.connections (name, engine, description) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET engine = EXCLUDED.engine, description = EXCLUDED.description, updated_at = now()`,
          [connection.name, connection.engine, connection.description],
        );
        return { ...connection, active: connection.name === options.activeConnection.name };
      },
    },

    conversations: {
      async list(options) {
        const { limit, offset } = limitOf(options);
        const result = await db.query(
          `SELECT profile, id, title, message_count, created_at, updated_at FROM ${S}.conversations
           WHERE profile = $1 ORDER BY touched DESC LIMIT $2 OFFSET $3`,
          [options?.profile ?? DEFAULT_PROFILE, limit, offset],
        );
        return result.rows.map(toConversationSummary);
      },
      async get(id, profile = DEFAULT_PROFILE) {
        const result = await db.query(
          `SELECT profile, id, title, message_count, created_at, updated_at, messages FROM ${S}.conversations
           WHERE profile = $1 AND id = $2`,
          [profile, id],
        );
        const row = result.rows[0];
        if (!row) {
          throw new DataSourceError(
            'not-found',
            `No conversation '${id}' in profile '${profile}'. It may have been deleted; list the conversations to see their ids.`,
          );
        }
        return { ...toConversationSummary(row), messages: row.messages as ConversationMessage[] };
      },
      async save(conversation) {
        const id = checkConversationId(conversation.id);
        const messages = checkMessages(conversation.messages);
        const profile = conversation.profile ?? DEFAULT_PROFILE;
        const title =
          typeof conversation.title === 'string' && conversation.title.trim()
            ? conversation.title.trim().slice(0, 200)
            : conversationTitle(messages);
        const json = JSON.stringify(messages);
        if (json.length > CONVERSATION_MAX_CHARS) {
          throw new DataSourceError(
            'misuse',
            `Conversation '${id}' is ${Math.round(json.length / 1024 / 1024)} MB of JSON, over the ${CONVERSATION_MAX_CHARS / 1024 / 1024} MB a conversation may hold. Start a new conversation.`,
          );
        }
        const result = await db.query(
          `INSERT INTO ${S}.conversations (profile, id, title, messages, message_count)
           VALUES ($1, $2, $3, $4::json, $5)
           ON CONFLICT (profile, id) DO UPDATE SET title = EXCLUDED.title, messages = EXCLUDED.messages,
             message_count = EXCLUDED.message_count, updated_at = now(),
             touched = nextval('${S}.conversations_touched')
           RETURNING profile, id, title, message_count, created_at, updated_at`,
          [profile, id, title, json, messages.length],
        );
        return toConversationSummary(result.rows[0]!);
      },
      async delete(id, profile = DEFAULT_PROFILE) {
        const result = await db.query(`DELETE FROM ${S}.conversations WHERE profile = $1 AND id = $2`, [
          profile,
          id,
        ]);
        return result.rowCount > 0;
      },
    },

    tokens: {
      async create({ name, scope, expiresAt, askViaClient }) {
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
          throw new DataSourceError(
            'misuse',
            `Token name '${name}' is not allowed: use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
          );
        }
        if (expiresAt && expiresAt.getTime() <= Date.now()) {
          throw new DataSourceError(
            'misuse',
            `expiresAt ${expiresAt.toISOString()} is in the past; give a future time or none.`,
          );
        }
        const token = `trw_${randomBytes(32).toString('base64url')}`;
        try {
          const result = await db.query(
            `INSERT INTO ${S}.mcp_tokens (name, token_hash, scope, expires_at, ask_via_client) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
            [name, hashToken(token), scope, expiresAt ?? null, askViaClient === true],
          );
          return { token, record: toToken(result.rows[0]!) };
        } catch (error) {
          if ((error as { code?: string }).code === '23505') {
            throw new DataSourceError(
              'already-exists',
              `A live MCP token named '${name}' exists already. Revoke it first or pick another name.`,
            );
          }
          throw error;
        }
      },
      async verify(token) {
        if (typeof token !== 'string' || token.length === 0) return { ok: false, reason: 'unknown' };
        const hash = hashToken(token);
        const now = Date.now();
        let record = cache.get(hash, now) as McpToken | undefined;
        if (!record) {
          const result = await db.query(`SELECT * FROM ${S}.mcp_tokens WHERE token_hash = $1`, [hash]);
          const row = result.rows[0];
          if (!row) return { ok: false, reason: 'unknown' };
          record = toToken(row);
          if (record.revokedAt) return { ok: false, reason: 'revoked', token: record };
          cache.set(hash, record, now);
        }
        if (record.expiresAt && record.expiresAt.getTime() <= now)
          return { ok: false, reason: 'expired', token: record };
        // No write per request: the stamp is remembered and written with the next flush.
        const at = new Date(now);
        tokenLastUse.touch(record.id, at);
        return { ok: true, token: { ...record, lastUsedAt: at } };
      },
      async list() {
        await tokenLastUse.flush();
        return (await db.query(`SELECT * FROM ${S}.mcp_tokens ORDER BY created_at, id`)).rows.map(toToken);
      },
      async revoke(name) {
        const result = await db.transaction(async (tx) => {
          const revoked = await tx.query(
            `UPDATE ${S}.mcp_tokens SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL`,
            [name],
          );
          // A later token may take the name: it must not inherit this one's remembered grants.
          if (revoked.rowCount > 0)
            await tx.query(`DELETE FROM ${S}.grants WHERE grantee = $1`, [`mcp:${name}`]);
          return revoked;
        });
        cache.clear();
        return result.rowCount > 0;
      },
    },
  };
  return app;
}
