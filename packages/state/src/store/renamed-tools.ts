// A renamed tool keeps what people gave it: the grants remembered for its former names (FORMER_NAMES,
// from the rows' `formerly`) move to its name each time the store opens (a no-op once moved), so a
// "yes, and remember" given before a rename still holds after it. The audit log keeps each entry
// as it was written; listing a tool's entries includes its former names (repositories/audit.ts).
import { FORMER_NAMES } from '@toolrow/catalog';
import type { StateDb } from './state-db.ts';

/** Moves every grant of a former name to the name it has now. Returns how many moved. */
export async function carryRenamedGrants(
  db: StateDb,
  formerNames: Readonly<Record<string, string>> = FORMER_NAMES,
): Promise<number> {
  const renames = Object.entries(formerNames);
  if (renames.length === 0) return 0;
  return db.q.transaction().execute(async (tx) => {
    let moved = 0;
    for (const [former, current] of renames) {
      const grants = await tx.selectFrom('grants').selectAll().where('tool', '=', former).execute();
      for (const grant of grants) {
        // The same grant under the new name already: the old one only goes.
        await tx
          .insertInto('grants')
          .values({
            profile: grant.profile,
            grantee: grant.grantee,
            tool: current,
            table_name: grant.table_name,
            granted_by: grant.granted_by,
            granted_at: new Date(grant.granted_at),
          })
          .onConflict((oc) => oc.columns(['profile', 'grantee', 'tool', 'table_name']).doNothing())
          .execute();
        moved++;
      }
      if (grants.length > 0) await tx.deleteFrom('grants').where('tool', '=', former).execute();
    }
    return moved;
  });
}

/** The names a tool's audit entries may be under: its own, and those it had before. */
export function namesOf(
  tool: string,
  formerNames: Readonly<Record<string, string>> = FORMER_NAMES,
): string[] {
  return [
    tool,
    ...Object.entries(formerNames).flatMap(([former, current]) => (current === tool ? [former] : [])),
  ];
}
