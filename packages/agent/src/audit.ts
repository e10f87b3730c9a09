import type { ToolName } from '@toolrow/catalog';
import type { Actor, AuditDecision } from '@toolrow/state';

export type { AuditDecision } from '@toolrow/state';
// The digest the app-state audit log stores: one definition, in the data layer.
export { digestInput as inputDigest } from '@toolrow/state';

/** Who made a decision: the user at a prompt, the agent under the profile's mode, or an MCP client. */
export type DecidedBy = Actor;

/** One line of the always-on audit log, as the agent hands it to the GateStore. */
export interface AuditEntry {
  tool: ToolName;
  /** The call's input; the store keeps only its digest (sha-256 of canonical JSON). */
  input: unknown;
  decision: AuditDecision;
  decidedBy: DecidedBy;
  profileId: string;
  /** Team mode: the signed-in person it was for (their email). */
  person?: string;
  /** The tables the call concerns, when known. */
  tables?: readonly string[];
  at: Date;
  /** Why, in words: the ladder's rule, a remembered grant, or the user's reason for a denial. */
  reason?: string;
}
