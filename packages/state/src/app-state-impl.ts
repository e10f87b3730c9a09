import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describeCall } from '@toolrow/catalog';
import {
  type Actor,
  DataSourceError,
  DEFAULT_PROFILE,
  didYouMean,
  type ExportJob,
  isActor,
  nearestNames,
  type Row,
} from '@toolrow/datasource';
import { sql } from 'kysely';
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
  type ModelSetting,
  PERMISSION_MODES,
  type PermissionMode,
  type Profile,
  type QueryHistoryEntry,
  type SavedModel,
  type SavedSpec,
  type UiState,
} from './app-types.ts';
import { createOAuthStore, writeGrantLastUse } from './oauth-store.ts';
import {
  byteLength,
  date,
  dateOrNull,
  flag,
  isUniqueViolation,
  jsonValue,
  lockRows,
  nextValue,
  type StateDb,
} from './store/state-db.ts';
import { hashToken } from './token-hash.ts';
import { createLastUse, createVerifyCache } from './verify-cache.ts';

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
  spec: jsonValue<Record<string, unknown>>(row.spec),
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
  summary: (row.summary as string | null) ?? null,
  createdAt: date(row.created_at),
});

export const toExportJob = (row: Row): ExportJob => ({
  id: row.id as string,
  profile: row.profile as string,
  actor: row.actor as Actor,
  state: row.state as ExportJob['state'],
  format: row.format as ExportJob['format'],
  path: row.path as string,
  source: jsonValue<Record<string, unknown>>(row.source),
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
  askViaClient: flag(row.ask_via_client),
  connection: (row.connection as string | null | undefined) ?? null,
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

function toConnection(
  row: { name: string; engine: string; description: string; url: string | null; mcp_scope: string | null },
  active: string | undefined,
  chosen: string | undefined,
): ConnectionInfo {
  return {
    name: row.name,
    engine: row.engine as ConnectionInfo['engine'],
    description: row.description,
    active: row.name === active,
    named: row.url !== null,
    ...(row.url !== null ? { url: row.url, mcpScope: row.mcp_scope, isDefault: row.name === chosen } : {}),
  };
}

/** The error for a connection name that is not configured, naming those that are. */
export function unknownConnection(name: string, names: readonly string[]): DataSourceError {
  return new DataSourceError(
    'not-found',
    `There is no connection named '${name}'. ${names.length > 0 ? `The connections are: ${names.join(', ')}.` : 'No connection is configured yet.'} Add one with toolrow connections add ${name} <url>, or list them with toolrow connections list.`,
  );
}

function emptyUi(profile: string): UiState {
  return { profile, tabs: [], focusedTabId: null, selection: null, updatedAt: new Date(0) };
}

export interface AppStateOptions {
  /** The connection this process uses, listed as active by connections.list(); none when it opened no data. */
  activeConnection?: Omit<ConnectionInfo, 'active'>;
  /** How long a verified bearer token is trusted without a query (default VERIFY_CACHE_TTL_MS). */
  verifyCacheTtlMs?: number;
}

export function createAppState(db: StateDb, options: AppStateOptions = {}): AppState {
  const { q, dialect } = db;
  const ensureProfile = async (name: string = DEFAULT_PROFILE): Promise<Profile> => {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new DataSourceError('misuse', 'A profile name must be a non-empty string.');
    }
    const row = await q
      .insertInto('profiles')
      .values({ name })
      .onConflict((oc) => oc.column('name').doUpdateSet({ name: (eb) => eb.ref('excluded.name') }))
      .returning(['name', 'mode', 'created_at'])
      .executeTakeFirstOrThrow();
    return toProfile(row);
  };

  // One cache for both kinds of bearer token: any revocation clears it.
  const cache = createVerifyCache<unknown>(options.verifyCacheTtlMs);
  const tokenLastUse = createLastUse<number>(async (stamps) => {
    await q.transaction().execute(async (tx) => {
      for (const [id, at] of stamps) {
        // Never back in time: another process may have written a later use.
        await tx
          .updateTable('mcp_tokens')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
          .execute();
      }
    });
  });
  const grantLastUse = createLastUse<string>((stamps) => writeGrantLastUse(q, stamps));
  const flushLastUse = async () => {
    await Promise.all([tokenLastUse.flush(), grantLastUse.flush()]);
  };

  const attachmentColumns = ['id', 'profile', 'name', 'media_type', 'created_at'] as const;

  const modelKeyOf = (profile: string) => `model:${profile}`;
  const DEFAULT_CONNECTION_KEY = 'default_connection';
  const defaultConnection = async (): Promise<string | undefined> =>
    (
      await q
        .selectFrom('settings')
        .select('value')
        .where('key', '=', DEFAULT_CONNECTION_KEY)
        .executeTakeFirst()
    )?.value;
  const setDefaultConnection = async (name: string | undefined): Promise<void> => {
    if (name === undefined) {
      await q.deleteFrom('settings').where('key', '=', DEFAULT_CONNECTION_KEY).execute();
      return;
    }
    const values = { value: name, updated_at: new Date() };
    await q
      .insertInto('settings')
      .values({ key: DEFAULT_CONNECTION_KEY, ...values })
      .onConflict((oc) => oc.column('key').doUpdateSet(values))
      .execute();
  };
  const namedConnections = async (): Promise<string[]> =>
    (
      await q.selectFrom('connections').select('name').where('url', 'is not', null).orderBy('name').execute()
    ).map((row) => row.name);
  const getConnection = async (name: string): Promise<ConnectionInfo | undefined> => {
    const row = await q
      .selectFrom('connections')
      .select(['name', 'engine', 'description', 'url', 'mcp_scope'])
      .where('name', '=', name)
      .where('url', 'is not', null)
      .executeTakeFirst();
    return row ? toConnection(row, options.activeConnection?.name, await defaultConnection()) : undefined;
  };

  const app: AppState = {
    flushLastUse,
    oauth: createOAuthStore({ db, cache, lastUse: grantLastUse }),
    profiles: {
      ensure: ensureProfile,
      async list() {
        return (
          await q.selectFrom('profiles').select(['name', 'mode', 'created_at']).orderBy('name').execute()
        ).map(toProfile);
      },
      async setMode(name, mode) {
        if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
          throw new DataSourceError(
            'misuse',
            `Permission mode must be one of ${PERMISSION_MODES.join(', ')}, got '${mode}'.`,
          );
        }
        await ensureProfile(name);
        const row = await q
          .updateTable('profiles')
          .set({ mode })
          .where('name', '=', name)
          .returning(['name', 'mode', 'created_at'])
          .executeTakeFirstOrThrow();
        return toProfile(row);
      },
      async grants(profile, grantee) {
        if (grantee !== undefined) checkGrantee(grantee);
        const rows = await q
          .selectFrom('grants')
          .selectAll()
          .where('profile', '=', profile)
          .$if(grantee !== undefined, (qb) => qb.where('grantee', '=', grantee!))
          .orderBy('grantee')
          .orderBy('tool')
          .orderBy('table_name')
          .execute();
        return rows.map(toGrant);
      },
      async hasGrant(profile, grantee, tool, table) {
        checkGrantee(grantee);
        const row = await q
          .selectFrom('grants')
          .select('tool')
          .where('profile', '=', profile)
          .where('grantee', '=', grantee)
          .where('tool', '=', tool)
          .where('table_name', 'in', [table, '*'])
          .executeTakeFirst();
        return row !== undefined;
      },
      async addGrant(grant) {
        checkActor(grant.grantedBy, 'grantedBy');
        checkGrantee(grant.grantee);
        await ensureProfile(grant.profile);
        const row = await q
          .insertInto('grants')
          .values({
            profile: grant.profile,
            grantee: grant.grantee,
            tool: grant.tool,
            table_name: grant.table,
            granted_by: grant.grantedBy,
            granted_at: new Date(),
          })
          .onConflict((oc) =>
            oc
              .columns(['profile', 'grantee', 'tool', 'table_name'])
              .doUpdateSet({ granted_by: (eb) => eb.ref('excluded.granted_by'), granted_at: new Date() }),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        return toGrant(row);
      },
      async revokeGrants(profile, match = {}) {
        if (match.grantee !== undefined) checkGrantee(match.grantee);
        const result = await q
          .deleteFrom('grants')
          .where('profile', '=', profile)
          .$if(match.grantee !== undefined, (qb) => qb.where('grantee', '=', match.grantee!))
          .$if(match.tool !== undefined, (qb) => qb.where('tool', '=', match.tool!))
          .$if(match.table !== undefined, (qb) => qb.where('table_name', '=', match.table!))
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async revokeGranteeGrants(grantee) {
        checkGrantee(grantee);
        const result = await q.deleteFrom('grants').where('grantee', '=', grantee).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
    },

    ui: {
      async get(profile = DEFAULT_PROFILE) {
        const row = await q
          .selectFrom('ui_state')
          .selectAll()
          .where('profile', '=', profile)
          .executeTakeFirst();
        if (!row) return emptyUi(profile);
        return {
          profile,
          tabs: jsonValue<UiState['tabs']>(row.tabs),
          focusedTabId: row.focused_tab_id ?? null,
          selection: jsonValue<UiState['selection']>(row.selection) ?? null,
          updatedAt: date(row.updated_at),
        };
      },
      async update(profile, patch) {
        return q.transaction().execute(async (tx) => {
          const row = await tx
            .selectFrom('ui_state')
            .select(['tabs', 'focused_tab_id', 'selection'])
            .where('profile', '=', profile)
            .$call(lockRows(dialect))
            .executeTakeFirst();
          const tabs = patch.tabs ?? (row ? jsonValue<UiState['tabs']>(row.tabs) : undefined) ?? [];
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
          let focused = patch.focusedTabId !== undefined ? patch.focusedTabId : (row?.focused_tab_id ?? null);
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
              : ((row ? jsonValue<UiState['selection']>(row.selection) : null) ?? null);
          if (selection && !ids.has(selection.tabId)) selection = null;
          const values = {
            tabs: JSON.stringify(tabs),
            focused_tab_id: focused,
            selection: selection === null ? null : JSON.stringify(selection),
            updated_at: new Date(),
          };
          const written = await tx
            .insertInto('ui_state')
            .values({ profile, ...values })
            .onConflict((oc) => oc.column('profile').doUpdateSet(values))
            .returning('updated_at')
            .executeTakeFirstOrThrow();
          return { profile, tabs, focusedTabId: focused, selection, updatedAt: date(written.updated_at) };
        });
      },
    },

    specs: {
      async list() {
        return (await q.selectFrom('saved_specs').selectAll().orderBy('name').execute()).map(toSpec);
      },
      async get(name) {
        const row = await q.selectFrom('saved_specs').selectAll().where('name', '=', name).executeTakeFirst();
        if (row) return toSpec(row);
        const names = (await q.selectFrom('saved_specs').select('name').orderBy('name').execute()).map(
          (spec) => spec.name,
        );
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
        const values = {
          kind: spec.kind,
          description: spec.description ?? null,
          spec: JSON.stringify(spec.spec),
          updated_at: new Date(),
        };
        const row = await q
          .insertInto('saved_specs')
          .values({ name: spec.name, ...values })
          .onConflict((oc) => oc.column('name').doUpdateSet(values))
          .returningAll()
          .executeTakeFirstOrThrow();
        return toSpec(row);
      },
      async delete(name) {
        const result = await q.deleteFrom('saved_specs').where('name', '=', name).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },

    history: {
      async add(entry) {
        checkActor(entry.actor, 'actor');
        const row = await q
          .insertInto('query_history')
          .values({
            profile: entry.profile,
            actor: entry.actor,
            sql: entry.sql,
            row_count: entry.rowCount,
            duration_ms: entry.durationMs,
            error: entry.error,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toHistory(row);
      },
      async list(options) {
        const { limit, offset } = limitOf(options);
        const rows = await q
          .selectFrom('query_history')
          .selectAll()
          .$if(options?.profile != null, (qb) => qb.where('profile', '=', options!.profile!))
          .$if(options?.actor != null, (qb) => qb.where('actor', '=', options!.actor!))
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute();
        return rows.map(toHistory);
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
        const row = await q
          .insertInto('audit_log')
          .values({
            tool: entry.tool,
            input_digest: digestInput(entry.input),
            decision: entry.decision,
            decided_by: entry.decidedBy,
            profile: entry.profile,
            table_name: entry.table ?? null,
            detail: entry.detail ?? null,
            // Its shape only: the input itself is digested, never stored.
            summary: describeCall(entry.tool, entry.input, { values: false }),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toAudit(row);
      },
      async list(options) {
        const { limit, offset } = limitOf(options);
        const rows = await q
          .selectFrom('audit_log')
          .selectAll()
          .$if(options?.profile != null, (qb) => qb.where('profile', '=', options!.profile!))
          .$if(options?.tool != null, (qb) => qb.where('tool', '=', options!.tool!))
          .$if(options?.decision != null, (qb) => qb.where('decision', '=', options!.decision!))
          .$if(options?.actor != null, (qb) => qb.where('decided_by', '=', options!.actor!))
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute();
        return rows.map(toAudit);
      },
    },

    exportJobs: {
      async get(id) {
        const row = await q.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirst();
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
        const rows = await q
          .selectFrom('export_jobs')
          .selectAll()
          .$if(options?.profile != null, (qb) => qb.where('profile', '=', options!.profile!))
          .$if(options?.actor != null, (qb) => qb.where('actor', '=', options!.actor!))
          .orderBy('seq', 'desc')
          .limit(limit)
          .offset(offset)
          .execute();
        return rows.map(toExportJob);
      },
    },

    attachments: {
      async add(attachment) {
        const content =
          typeof attachment.content === 'string'
            ? new TextEncoder().encode(attachment.content)
            : attachment.content;
        const row = await q
          .insertInto('attachments')
          .values({
            id: randomUUID(),
            profile: attachment.profile ?? DEFAULT_PROFILE,
            name: attachment.name,
            media_type: attachment.mediaType,
            content,
            seq: nextValue(dialect, 'attachments.seq'),
          })
          .returning([...attachmentColumns, byteLength(dialect, 'content').as('size_bytes')])
          .executeTakeFirstOrThrow();
        return toAttachment(row);
      },
      async get(idOrName, profile = DEFAULT_PROFILE) {
        const row = await q
          .selectFrom('attachments')
          .select([...attachmentColumns, 'content', byteLength(dialect, 'content').as('size_bytes')])
          .where((eb) =>
            eb.or([
              eb('id', '=', idOrName),
              eb.and([eb('name', '=', idOrName), eb('profile', '=', profile)]),
            ]),
          )
          .orderBy(sql`(id = ${idOrName})`, 'desc')
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (!row) {
          const names = (
            await q
              .selectFrom('attachments')
              .select('name')
              .distinct()
              .where('profile', '=', profile)
              .orderBy('name')
              .execute()
          ).map((item) => item.name);
          throw new DataSourceError(
            'not-found',
            `No attachment '${idOrName}'.${didYouMean(nearestNames(idOrName, names))} ${
              names.length > 0
                ? `Attached: ${names.slice(0, 20).join(', ')}.`
                : 'Nothing is attached to this chat.'
            }`,
          );
        }
        const raw = row.content;
        return { ...toAttachment(row), content: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) };
      },
      async list(profile = DEFAULT_PROFILE) {
        const rows = await q
          .selectFrom('attachments')
          .select([...attachmentColumns, byteLength(dialect, 'content').as('size_bytes')])
          .where('profile', '=', profile)
          .orderBy('seq', 'desc')
          .execute();
        return rows.map(toAttachment);
      },
      async delete(id) {
        const result = await q.deleteFrom('attachments').where('id', '=', id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },

    connections: {
      async list() {
        const [rows, chosen] = await Promise.all([
          q
            .selectFrom('connections')
            .select(['name', 'engine', 'description', 'url', 'mcp_scope'])
            .orderBy('name')
            .execute(),
          defaultConnection(),
        ]);
        const active = options.activeConnection;
        const listed: ConnectionInfo[] = rows.map((row) => toConnection(row, active?.name, chosen));
        if (active && !listed.some((row) => row.active)) listed.unshift({ ...active, active: true });
        return listed;
      },
      async save(connection) {
        if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(connection.description)) {
          throw new DataSourceError(
            'misuse',
            'A connection description must not hold a password; describe it as user@host:port/db.',
          );
        }
        const values = {
          engine: connection.engine,
          description: connection.description,
          updated_at: new Date(),
        };
        await q
          .insertInto('connections')
          .values({ name: connection.name, ...values })
          .onConflict((oc) => oc.column('name').doUpdateSet(values))
          .execute();
        return { ...connection, active: connection.name === options.activeConnection?.name };
      },
      async add(connection) {
        if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(connection.url)) {
          throw new DataSourceError(
            'misuse',
            'A stored connection URL must not hold a password; keep it apart.',
          );
        }
        try {
          await q
            .insertInto('connections')
            .values({
              name: connection.name,
              engine: connection.engine,
              description: connection.description,
              url: connection.url,
              mcp_scope: connection.mcpScope ?? null,
              updated_at: new Date(),
            })
            .execute();
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new DataSourceError(
              'already-exists',
              `name: a connection named '${connection.name}' exists already. Choose another name, or remove it first (toolrow connections remove ${connection.name}).`,
            );
          }
          throw error;
        }
        return (await getConnection(connection.name))!;
      },
      get: getConnection,
      async remove(name) {
        const result = await q
          .deleteFrom('connections')
          .where('name', '=', name)
          .where('url', 'is not', null)
          .executeTakeFirst();
        if ((await defaultConnection()) === name) await setDefaultConnection(undefined);
        return Number(result.numDeletedRows) > 0;
      },
      async setMcpScope(name, scope) {
        const result = await q
          .updateTable('connections')
          .set({ mcp_scope: scope, updated_at: new Date() })
          .where('name', '=', name)
          .where('url', 'is not', null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) throw unknownConnection(name, await namedConnections());
        return (await getConnection(name))!;
      },
      defaultName: defaultConnection,
      async setDefault(name) {
        if (name !== undefined && !(await getConnection(name)))
          throw unknownConnection(name, await namedConnections());
        await setDefaultConnection(name);
      },
    },

    models: {
      async get(profile) {
        const row = await q
          .selectFrom('settings')
          .select(['value', 'updated_at'])
          .where('key', '=', modelKeyOf(profile))
          .executeTakeFirst();
        if (!row) return null;
        return { profile, setting: JSON.parse(row.value) as ModelSetting, updatedAt: date(row.updated_at) };
      },
      async set(profile, setting) {
        // Only the known fields: nothing else (a key pasted into the wrong field) reaches the store.
        const clean: ModelSetting = {
          provider: setting.provider,
          modelId: setting.modelId,
          ...(setting.baseURL ? { baseURL: setting.baseURL } : {}),
          ...(setting.region ? { region: setting.region } : {}),
          ...(setting.awsProfile ? { awsProfile: setting.awsProfile } : {}),
        };
        const values = { value: JSON.stringify(clean), updated_at: new Date() };
        await q
          .insertInto('settings')
          .values({ key: modelKeyOf(profile), ...values })
          .onConflict((oc) => oc.column('key').doUpdateSet(values))
          .execute();
        return { profile, setting: clean, updatedAt: values.updated_at } satisfies SavedModel;
      },
      async clear(profile) {
        const result = await q
          .deleteFrom('settings')
          .where('key', '=', modelKeyOf(profile))
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
    },
    conversations: {
      async list(options) {
        const { limit, offset } = limitOf(options);
        const rows = await q
          .selectFrom('conversations')
          .select(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at'])
          .where('profile', '=', options?.profile ?? DEFAULT_PROFILE)
          .orderBy('touched', 'desc')
          .limit(limit)
          .offset(offset)
          .execute();
        return rows.map(toConversationSummary);
      },
      async get(id, profile = DEFAULT_PROFILE) {
        const row = await q
          .selectFrom('conversations')
          .select(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at', 'messages'])
          .where('profile', '=', profile)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) {
          throw new DataSourceError(
            'not-found',
            `No conversation '${id}' in profile '${profile}'. It may have been deleted; list the conversations to see their ids.`,
          );
        }
        return { ...toConversationSummary(row), messages: jsonValue<ConversationMessage[]>(row.messages) };
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
        const now = new Date();
        const row = await q
          .insertInto('conversations')
          .values({
            profile,
            id,
            title,
            messages: json,
            message_count: messages.length,
            created_at: now,
            updated_at: now,
            touched: nextValue(dialect, 'conversations.touched'),
          })
          .onConflict((oc) =>
            oc.columns(['profile', 'id']).doUpdateSet({
              title: (eb) => eb.ref('excluded.title'),
              messages: (eb) => eb.ref('excluded.messages'),
              message_count: (eb) => eb.ref('excluded.message_count'),
              updated_at: now,
              touched: nextValue(dialect, 'conversations.touched'),
            }),
          )
          .returning(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at'])
          .executeTakeFirstOrThrow();
        return toConversationSummary(row);
      },
      async delete(id, profile = DEFAULT_PROFILE) {
        const result = await q
          .deleteFrom('conversations')
          .where('profile', '=', profile)
          .where('id', '=', id)
          .executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },

    tokens: {
      async create({ name, scope, expiresAt, askViaClient, connection }) {
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
          const row = await q
            .insertInto('mcp_tokens')
            .values({
              name,
              token_hash: hashToken(token),
              scope,
              expires_at: expiresAt ?? null,
              ask_via_client: askViaClient === true,
              connection: connection ?? null,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return { token, record: toToken(row) };
        } catch (error) {
          if (isUniqueViolation(error)) {
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
          const row = await q
            .selectFrom('mcp_tokens')
            .selectAll()
            .where('token_hash', '=', hash)
            .executeTakeFirst();
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
        return (
          await q.selectFrom('mcp_tokens').selectAll().orderBy('created_at').orderBy('id').execute()
        ).map(toToken);
      },
      async revoke(name) {
        const revoked = await q.transaction().execute(async (tx) => {
          const result = await tx
            .updateTable('mcp_tokens')
            .set({ revoked_at: new Date() })
            .where('name', '=', name)
            .where('revoked_at', 'is', null)
            .executeTakeFirst();
          // A later token may take the name: it must not inherit this one's remembered grants.
          if (result.numUpdatedRows > 0n)
            await tx.deleteFrom('grants').where('grantee', '=', `mcp:${name}`).execute();
          return result.numUpdatedRows > 0n;
        });
        cache.clear();
        return revoked;
      },
    },
  };
  return app;
}
