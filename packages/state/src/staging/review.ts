// What an approver reviewed, as one digest: the changes' ids and contents, who staged them. The
// commit compares it with the changes selected at commit time, so an approval covers exactly what
// was seen: a change added, edited or discarded since voids it.
import { createHash } from 'node:crypto';
import type { StagedChange } from './types.ts';

/** sha-256 (hex) of the changes in id order: what a review of them saw. */
export function reviewDigest(changes: readonly StagedChange[]): string {
  const seen = [...changes]
    .sort((a, b) => a.id - b.id)
    .map((change) => [
      change.id,
      change.kind,
      change.table,
      change.key,
      change.before,
      change.values,
      change.stagedBy,
      change.person,
    ]);
  return createHash('sha256').update(JSON.stringify(seen)).digest('hex');
}
