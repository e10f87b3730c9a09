import { createHash } from 'node:crypto';
import type { ToolName } from '@toolrow/catalog';

/** The four gated decisions the audit log records. */
export type AuditDecision = 'asked' | 'approved' | 'denied' | 'auto';

/** Who made a decision: the user at a prompt, or the agent under the profile's permission mode. */
export type DecidedBy = 'user' | 'agent' | `mcp:${string}`;

/** One line of the always-on audit log. */
export interface AuditEntry {
  tool: ToolName;
  /** sha-256 (hex) of the input as canonical JSON: proves what ran without storing the data. */
  inputDigest: string;
  decision: AuditDecision;
  decidedBy: DecidedBy;
  profileId: string;
  at: Date;
  /** Why, in words: the ladder rung, or the user's reason for a denial. */
  reason?: string;
}

/** JSON with object keys sorted at every depth, so equal inputs always hash equal. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
      return Object.fromEntries(
        Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }) ?? 'null'
  );
}

/** The digest the audit log stores for a tool input. */
export function inputDigest(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}
