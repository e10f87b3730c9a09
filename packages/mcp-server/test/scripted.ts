// A scripted McpBackend for the transport suites: tools that record their runs, an audit log in
// memory (or wherever `log` puts it), and a profile whose mode the test sets.
import type { Grant, PermissionMode } from '@toolrow/agent';
import type { McpToken } from '@toolrow/state';
import * as z from 'zod';
import type { McpAuditRecord, McpBackend } from '../src/backend.ts';
import type { McpTokenStore } from '../src/tokens.ts';

export interface ScriptedBackend {
  backend: McpBackend;
  runs: { name: string; input: unknown; actor: string }[];
  audits: McpAuditRecord[];
  grants: Grant[];
  /** The profile's mode; change it between calls. */
  mode: PermissionMode;
}

export function scriptedBackend(
  options: {
    mode?: PermissionMode;
    /** The tables a call concerns: by default its `table` input, if any. */
    tablesOf?: (input: unknown) => readonly string[] | undefined;
    log?: (entry: unknown) => void;
  } = {},
): ScriptedBackend {
  const scripted: ScriptedBackend = {
    runs: [],
    audits: [],
    grants: [],
    mode: options.mode ?? 'full-auto',
    backend: undefined as unknown as McpBackend,
  };
  const tablesOf =
    options.tablesOf ??
    ((input: unknown) => {
      const table = (input as { table?: unknown } | null)?.table;
      return typeof table === 'string' ? [table] : undefined;
    });
  scripted.backend = {
    profile: 'default',
    inputSchemaOf: () => z.object({}).passthrough(),
    outputSchemaOf: () => ({ type: 'object' }),
    parseInput: (_name, rawInput) => rawInput,
    async run(name, input, call) {
      const run = { name, input, actor: call.actor };
      scripted.runs.push(run);
      options.log?.({ kind: 'run', ...run });
      return { ran: name };
    },
    async audit(record) {
      scripted.audits.push(record);
      options.log?.({ kind: 'audit', ...record });
    },
    permissions: async () => ({ mode: scripted.mode, grants: [...scripted.grants] }),
    tablesOf: async (_name, input) => tablesOf(input),
    async rememberGrant(grant) {
      scripted.grants.push(grant);
      options.log?.({ kind: 'grant', ...grant });
    },
  };
  return scripted;
}

/** Tokens in memory, with the store's semantics (unknown, expired, revoked). */
export function memoryTokens(now = () => new Date()): McpTokenStore {
  const records: McpToken[] = [];
  const secrets = new Map<string, McpToken>();
  return {
    async create({ name, scope, expiresAt, askViaClient, connection, person }) {
      const record: McpToken = {
        id: records.length + 1,
        name,
        tokenHash: `hash-${records.length}`,
        scope,
        createdAt: now(),
        expiresAt: expiresAt ?? null,
        revokedAt: null,
        lastUsedAt: null,
        askViaClient: askViaClient === true,
        connection: connection ?? null,
        person: person ?? null,
      };
      const token = `tok-${records.length}-${Math.random()}`;
      records.push(record);
      secrets.set(token, record);
      return { token, record };
    },
    async verify(token) {
      const record = secrets.get(token);
      if (!record) return { ok: false, reason: 'unknown' };
      if (record.revokedAt) return { ok: false, reason: 'revoked', token: record };
      if (record.expiresAt && record.expiresAt <= now())
        return { ok: false, reason: 'expired', token: record };
      return { ok: true, token: record };
    },
    async list() {
      return records;
    },
    async revoke(name) {
      const record = records.find((candidate) => candidate.name === name && !candidate.revokedAt);
      if (!record) return false;
      record.revokedAt = now();
      return true;
    },
  };
}
