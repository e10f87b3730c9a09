// The audit log: every gated call, who decided it and how; inputs kept as a digest.

import { createHash } from 'node:crypto';
import { describeCall } from '@toolrow/catalog';
import { type Actor, DataSourceError, type Row } from '@toolrow/datasource';
import type { AuditDecision } from '../app-types.ts';
import { AUDIT_DECISIONS, type AuditEntry } from '../app-types.ts';
import { namesOf } from '../store/renamed-tools.ts';
import { date, type StateDb } from '../store/state-db.ts';
import type { ListOptions } from './checks.ts';

import { checkActor, limitOf } from './checks.ts';

/** What the store keeps of audit. */
export interface AuditRepository {
  /** Always-on log of gated decisions. `input` is digested (sha-256 of canonical JSON), never stored. */
  record(entry: {
    tool: string;
    input: unknown;
    decision: AuditDecision;
    decidedBy: Actor;
    profile: string;
    table?: string | null;
    detail?: string | null;
    /** Team mode: the signed-in person the decision or action was for (their email). */
    person?: string | null;
  }): Promise<AuditEntry>;
  list(
    options?: ListOptions & { tool?: string; decision?: AuditDecision; person?: string },
  ): Promise<AuditEntry[]>;
}

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
  person: (row.person as string | null | undefined) ?? null,
  createdAt: date(row.created_at),
});

export function createAudit(db: StateDb): AuditRepository {
  const { q } = db;
  return {
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
          person: entry.person ?? null,
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
        // A renamed tool's entries written under its former names are its entries too.
        .$if(options?.tool != null, (qb) => qb.where('tool', 'in', namesOf(options!.tool!)))
        .$if(options?.decision != null, (qb) => qb.where('decision', '=', options!.decision!))
        .$if(options?.person != null, (qb) => qb.where('person', '=', options!.person!))
        .$if(options?.actor != null, (qb) => qb.where('decided_by', '=', options!.actor!))
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toAudit);
    },
  };
}
