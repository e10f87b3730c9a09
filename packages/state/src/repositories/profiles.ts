// Profiles: each connection's permission mode, and the grants its "Auto" mode remembers.
import { type Actor, DataSourceError, DEFAULT_PROFILE, isActor, type Row } from '@toolrow/datasource';
import {
  type Grant,
  type Grantee,
  PERMISSION_MODES,
  type PermissionMode,
  type Profile,
} from '../app-types.ts';
import { date, type StateDb } from '../store/state-db.ts';

import { checkActor } from './checks.ts';

/** What the store keeps of profiles. */
export interface ProfileRepository {
  /** The profile, created with mode 'manual' when missing. */
  ensure(name?: string): Promise<Profile>;
  list(): Promise<Profile[]>;
  setMode(name: string, mode: PermissionMode): Promise<Profile>;
  /** The profile's remembered grants: one grantee's, or (omitted) everyone's, for review. */
  grants(profile: string, grantee?: Grantee): Promise<Grant[]>;
  /** Whether this grantee (the chat agent, or one MCP client) holds the grant; never another's. */
  hasGrant(profile: string, grantee: Grantee, tool: string, table: string): Promise<boolean>;
  addGrant(grant: {
    profile: string;
    grantee: Grantee;
    tool: string;
    table: string;
    grantedBy: Actor;
  }): Promise<Grant>;
  /** Removes the matching grants of the profile (every one when nothing more is given). Returns how many. */
  revokeGrants(
    profile: string,
    match?: { grantee?: Grantee; tool?: string; table?: string },
  ): Promise<number>;
  /** Removes a grantee's grants in every profile (its MCP token or connection was revoked). */
  revokeGranteeGrants(grantee: Grantee): Promise<number>;
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

function checkGrantee(grantee: string): Grantee {
  if (grantee === 'user' || !isActor(grantee)) {
    throw new DataSourceError(
      'misuse',
      `A grant belongs to 'agent' (the chat) or one MCP client ('mcp:<name>'), got '${grantee}'.`,
    );
  }
  return grantee as Grantee;
}

export function createProfiles(db: StateDb): ProfileRepository {
  const { q } = db;
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
  return {
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
  };
}
