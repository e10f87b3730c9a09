// The reader role: a database role that holds SELECT on the user's schemas and nothing else. Reads
// of agent and user SQL run under `SET LOCAL ROLE` of it, so even a statement every other layer
import {
  APP_SCHEMA,
  DataSourceError,
  type ReaderRoleState,
  type ReaderRoleStatus,
  type ReadLayer,
} from '@toolrow/datasource';

// missed has no privilege to write, to read server files or to call superuser-only functions.
import type { Database, Queryable } from './database.ts';
import { quoteIdent, quoteLiteral } from './sql.ts';

export type { ReaderRoleState, ReaderRoleStatus, ReadLayer };

/** The role Toolrow sets up on embedded PGlite, and looks for on a server (TOOLROW_READER_ROLE names another). */
export const READER_ROLE = 'toolrow_reader';

const SYSTEM_SCHEMAS = `nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'`;

/** The user's schemas: everything but the system's and Toolrow's legacy app-state schema. */
export async function userSchemas(db: Queryable): Promise<string[]> {
  const result = await db.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE ${SYSTEM_SCHEMAS} AND nspname <> $1 ORDER BY nspname`,
    [APP_SCHEMA],
  );
  return result.rows.map((row) => row.nspname);
}

export interface ReaderRoleSqlOptions {
  role?: string;
  schemas: readonly string[];
  /** The login user that will SET ROLE to it (granted membership). */
  grantee?: string;
}

/**
 * The script a DBA runs (or `toolrow db setup-roles --apply` runs) to create the reader role.
 * Idempotent. Default privileges cover tables the running role creates later.
 */
export function readerRoleSql(options: ReaderRoleSqlOptions): string {
  const role = options.role ?? READER_ROLE;
  const ident = quoteIdent(role);
  const lines = [
    `-- Toolrow's reader role: SELECT on your schemas, nothing else. Run it as the owner of the tables.`,
    `DO $$ BEGIN`,
    `  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${quoteLiteral(role)}) THEN`,
    `    CREATE ROLE ${ident} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;`,
    `  END IF;`,
    `END $$;`,
  ];
  for (const schema of options.schemas) {
    const s = quoteIdent(schema);
    lines.push(
      `GRANT USAGE ON SCHEMA ${s} TO ${ident};`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ${ident};`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT ON TABLES TO ${ident};`,
    );
  }
  if (options.grantee) lines.push(`GRANT ${ident} TO ${quoteIdent(options.grantee)};`);
  return `${lines.join('\n')}\n`;
}

/**
 * What PUBLIC may do by default that outlives a read: create temp tables and large objects, and
 * call built-ins whose effect sits outside any table (the session's random seed and locks,
 * notifications, snapshots). A role holding only SELECT still inherits all of it from
 * PUBLIC, so the hardening takes it from PUBLIC: on embedded PGlite Toolrow does (it owns the
 * cluster, and its own statements run as the superuser); on a server it is the DBA's call, since
 * it applies to every role in the database.
 */
export const PUBLIC_EFFECT_FUNCTIONS: readonly string[] = [
  'setseed',
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_advisory_unlock',
  'pg_advisory_unlock_shared',
  'pg_advisory_unlock_all',
  'pg_notify',
  'pg_export_snapshot',
  'lo_create',
  'lo_creat',
  'lo_from_bytea',
  'lo_import',
  'lo_put',
  'lo_unlink',
  'lo_truncate',
  'lo_truncate64',
  'lowrite',
];

/**
 * On a server these stay with PUBLIC, because Toolrow's own users call them: the login user pins
 * each read's settings with set_config (pg_dump needs it too; what a read changes with it is undone
 * by the rollback), and a commit records its transaction id. Embedded PGlite, where Toolrow runs
 * as the superuser, takes them too.
 */
const EMBEDDED_EFFECT_FUNCTIONS: readonly string[] = [
  ...PUBLIC_EFFECT_FUNCTIONS,
  'set_config',
  'txid_current',
  'pg_current_xact_id',
];

/** The hardening script: PUBLIC loses TEMPORARY on this database and EXECUTE on the functions above. */
export function hardeningSql(functions: readonly string[] = PUBLIC_EFFECT_FUNCTIONS): string {
  const names = functions.map((name) => quoteLiteral(name)).join(', ');
  return [
    `-- Hardening: takes from PUBLIC (every role in this database) what a SELECT-only role would`,
    `-- otherwise inherit: temp tables, large objects, session locks and settings, notifications.`,
    `DO $$ DECLARE f regprocedure; BEGIN`,
    `  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());`,
    `  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p`,
    `    WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname IN (${names})`,
    `  LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP;`,
    `END $$;`,
    '',
  ].join('\n');
}

/**
 * Embedded PGlite: Toolrow owns the cluster, so it makes the role itself, hardened. Default
 * privileges make schemas and tables created later readable.
 */
export async function setUpEmbeddedReaderRole(db: Database): Promise<void> {
  // Only when something is missing: DDL at every open would take a transaction id before the state
  // store has checked which commits a crash interrupted (a crashed PGlite may hand that id out again).
  const current = await checkReaderRole(db, READER_ROLE, { requireComplete: true });
  if (current.state === 'in-use' && current.hardened) return;
  const schemas = await userSchemas(db);
  const ident = quoteIdent(READER_ROLE);
  await db.exec(
    [
      readerRoleSql({ schemas }),
      `ALTER DEFAULT PRIVILEGES GRANT USAGE ON SCHEMAS TO ${ident};`,
      `ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO ${ident};`,
      hardeningSql(EMBEDDED_EFFECT_FUNCTIONS),
    ].join('\n'),
  );
}

/** A server: is `role` there, may the login user SET ROLE to it, and can it write nothing? */
export async function checkReaderRole(
  db: Queryable,
  role: string,
  options: { requireComplete?: boolean } = {},
): Promise<ReaderRoleStatus> {
  const found = await db.query<{ super: boolean; member: boolean; powers: boolean }>(
    `SELECT rolsuper AS super, pg_has_role(current_user, oid, 'MEMBER') AS member,
            (rolcreaterole OR rolcreatedb OR rolbypassrls OR rolreplication) AS powers
       FROM pg_roles WHERE rolname = $1`,
    [role],
  );
  const row = found.rows[0];
  if (!row) {
    return {
      role,
      state: 'missing',
      detail: `no role ${role} on this server: \`toolrow db setup-roles\` prints the SQL that creates it`,
    };
  }
  if (!row.member) {
    return {
      role,
      state: 'not-member',
      detail: `role ${role} exists but the login user is not a member: GRANT ${quoteIdent(role)} TO current_user`,
    };
  }
  if (row.super || row.powers) {
    return {
      role,
      state: 'unsafe',
      detail: `role ${role} is a superuser or holds CREATEROLE/CREATEDB/BYPASSRLS/REPLICATION, so it is not used`,
    };
  }
  const writable = await db.query<{ name: string }>(
    `SELECT n.nspname || '.' || c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ${SYSTEM_SCHEMAS}
        AND has_table_privilege($1, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
      ORDER BY 1 LIMIT 3`,
    [role],
  );
  if (writable.rows.length > 0) {
    return {
      role,
      state: 'unsafe',
      detail: `role ${role} may write ${writable.rows.map((r) => r.name).join(', ')}, so it is not used: revoke its write privileges`,
    };
  }
  if (options.requireComplete) {
    const unreadable = await db.query<{ name: string }>(
      `SELECT n.nspname || '.' || c.relname AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${SYSTEM_SCHEMAS} AND n.nspname <> $2
          AND NOT (has_schema_privilege($1, n.oid, 'USAGE') AND has_table_privilege($1, c.oid, 'SELECT'))
        ORDER BY 1 LIMIT 3`,
      [role, APP_SCHEMA],
    );
    if (unreadable.rows.length > 0) {
      return {
        role,
        state: 'incomplete',
        detail: `role ${role} cannot read ${unreadable.rows.map((r) => r.name).join(', ')}, so it is not used: rerun \`toolrow db setup-roles\`, or set TOOLROW_READER_ROLE=${role} to use it as it is`,
      };
    }
  }
  // What the hardening takes away: if the role still has any of it, say so.
  const leftovers = await db.query<{ soft: boolean }>(
    `SELECT has_database_privilege($1, current_database(), 'TEMPORARY')
            OR EXISTS (SELECT FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace
                         AND p.proname = ANY($2) AND has_function_privilege($1, p.oid, 'EXECUTE')) AS soft`,
    [role, PUBLIC_EFFECT_FUNCTIONS],
  );
  const soft = leftovers.rows[0]?.soft === true;
  return {
    role,
    state: 'in-use',
    hardened: !soft,
    detail: soft
      ? `reads run as ${role} (SELECT only), which may still create temp tables and large objects: \`toolrow db setup-roles\` prints the hardening`
      : `reads run as ${role} (SELECT only, hardened)`,
  };
}

/** Picks the reader role for a connection and tells the database to use it. */
export async function prepareReaderRole(
  db: Database,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ReaderRoleStatus> {
  if (db.engine === 'pglite') {
    await setUpEmbeddedReaderRole(db);
    db.useReaderRole(READER_ROLE);
    return {
      role: READER_ROLE,
      state: 'embedded',
      detail: `reads run as ${READER_ROLE} (SELECT only, hardened), set up by Toolrow`,
    };
  }
  const named = env.TOOLROW_READER_ROLE?.trim();
  const role = named || READER_ROLE;
  const status = await checkReaderRole(db, role, { requireComplete: !named });
  if (status.state === 'in-use') db.useReaderRole(role);
  else if (named) {
    // Named on purpose and unusable: say so rather than quietly read without it.
    throw new DataSourceError('config', `TOOLROW_READER_ROLE=${role}: ${status.detail}.`);
  }
  return status;
}

/** One protective layer around agent and user SQL, as `toolrow db info` lists them. */
/**
 * The layers that protect reads on this connection, each of which stops writes by itself (the
 * tools add the parser guard on top; packages/tools README, "Threat model").
 */
export async function describeReadLayers(db: Database, reader: ReaderRoleStatus): Promise<ReadLayer[]> {
  const login = await db.query<{ super: boolean; writable: number }>(
    `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super,
            (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p') AND ${SYSTEM_SCHEMAS}
                AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')) AS writable`,
  );
  const { super: isSuper, writable } = login.rows[0] ?? { super: false, writable: 0 };
  return [
    {
      layer: 'one statement',
      active: true,
      detail: 'sent over the extended query protocol, which runs exactly one statement',
    },
    {
      layer: 'read-only transaction',
      active: true,
      detail:
        'READ ONLY, always rolled back, with standard_conforming_strings, client_encoding, search_path and timeouts pinned',
    },
    {
      layer: 'reader role',
      active: reader.state === 'embedded' || reader.state === 'in-use',
      detail: reader.detail,
    },
    {
      layer: 'login user',
      active: !isSuper && writable === 0,
      detail: isSuper
        ? 'a superuser: only the layers above protect reads'
        : writable === 0
          ? 'can write no table'
          : `can write ${writable} table${writable === 1 ? '' : 's'} (commits need that; TOOLROW_COMMIT_URL lets the reading user be SELECT-only)`,
    },
  ];
}
