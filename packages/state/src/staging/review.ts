// What an approver reviewed, as one digest: the changes' ids and contents, who staged them. The
// commit compares it with the changes selected at commit time, so an approval covers exactly what
// was seen: a change added, edited or discarded since voids it.
import { createHash } from 'node:crypto';
import type { ChangeDiff, Review, Reviewer, StagedChange } from './types.ts';

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

/**
 * What a review shows its reviewer: the digest, and whether they may commit the changes (an
 * approver, none of them theirs), with why not. The commit checks the same again (commit.ts).
 */
export function reviewFor(diffs: ChangeDiff[], reviewer?: Reviewer): Review {
  const changes = diffs.map((diff) => diff.change);
  const digest = reviewDigest(changes);
  if (!reviewer) return { diffs, digest };
  const base = { diffs, digest, you: reviewer.email };
  if (reviewer.role !== 'approver' && reviewer.role !== 'admin')
    return {
      ...base,
      approver: false,
      mayCommit: false,
      why: `As ${reviewer.role} you stage; an approver commits.`,
    };
  const own = changes.filter((change) => change.person === reviewer.email).length;
  if (own > 0)
    return {
      ...base,
      approver: true,
      mayCommit: false,
      why: `${own} of these ${own === 1 ? 'is' : 'are'} yours: another approver commits ${own === 1 ? 'it' : 'them'} (four eyes).`,
    };
  return { ...base, approver: true, mayCommit: true };
}
