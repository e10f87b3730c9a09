// Fingerprints of a database: equal fingerprints mean a statement left nothing behind (the attack
// corpus tests in @toolrow/tools and apps/server).
import type { DataSource } from '@toolrow/datasource';
import { sqlDatabaseOf } from './sql-source.ts';

/** A fingerprint of every row of every user table: equal fingerprints mean no table data changed. */
export async function dataFingerprint(source: DataSource): Promise<Record<string, string>> {
  const snapshot = await source.schema.get();
  const out: Record<string, string> = {};
  for (const table of snapshot.tables) {
    if (table.kind !== 'table') continue;
    const name = `"${table.schema}"."${table.name}"`;
    const result = await sqlDatabaseOf(source, 'A data fingerprint').query<{
      n: unknown;
      digest: string | null;
    }>(
      `SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${name} t`,
    );
    out[table.qualifiedName] = `${String(result.rows[0]?.n)}:${result.rows[0]?.digest}`;
  }
  return out;
}

/**
 * Everything outside the tables a statement could leave behind: the catalog (relations, functions,
 * types, schemas, roles, policies, rules, triggers, extensions, databases, large objects), sequence
 * values, per-database and per-role settings, server statistics resets, advisory locks, prepared
 * transactions and replication slots. With `session`, also this connection's settings, prepared
 * statements, cursors and channels (meaningful where there is one connection: PGlite).
 */
// Names are spelled out (oids and nspname, not regclass) so the session's search_path cannot
// change how a catalog prints.
export async function stateFingerprint(
  source: DataSource,
  options: { session?: boolean } = {},
): Promise<Record<string, string>> {
  const probes: Record<string, string> = {
    relations: `SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || c.relpersistence::text || ':' || c.relrowsecurity::text, ',' ORDER BY 1) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`,
    columns: `SELECT md5(string_agg(n.nspname || '.' || c.relname || '.' || attname || ':' || atttypid || ':' || atthasdef, ',' ORDER BY 1)) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND attnum > 0`,
    functions: `SELECT md5(string_agg(pronamespace::text || '.' || proname || '(' || proargtypes::text || '):' || coalesce(array_to_string(proacl, ';'), ''), ',' ORDER BY 1)) FROM pg_proc`,
    schemas: `SELECT string_agg(nspname || ':' || coalesce(array_to_string(nspacl, ';'), ''), ',' ORDER BY 1) FROM pg_namespace`,
    tableAcl: `SELECT md5(string_agg(relnamespace::text || '.' || relname || ':' || coalesce(array_to_string(relacl, ';'), ''), ',' ORDER BY 1)) FROM pg_class`,
    types: `SELECT count(*)::text FROM pg_type`,
    // Cluster-wide catalogs are narrowed to what this database's statements could leave: other
    // tests create databases and roles on the same server meanwhile.
    roles: `SELECT string_agg(rolname || ':' || rolsuper, ',' ORDER BY 1) FROM pg_roles WHERE rolname IN ('sneaky', current_user)`,
    policies: `SELECT count(*)::text FROM pg_policy`,
    rules: `SELECT count(*)::text FROM pg_rewrite`,
    triggers: `SELECT count(*)::text FROM pg_trigger`,
    extensions: `SELECT string_agg(extname, ',' ORDER BY 1) FROM pg_extension`,
    databases: `SELECT count(*)::text FROM pg_database WHERE datname = 'sneaky'`,
    collations: `SELECT count(*)::text FROM pg_collation`,
    descriptions: `SELECT count(*)::text FROM pg_description WHERE objoid >= 16384`,
    largeObjects: `SELECT count(*)::text FROM pg_largeobject_metadata`,
    sequences: `SELECT string_agg(schemaname || '.' || sequencename || '=' || coalesce(last_value::text, 'null'), ',' ORDER BY 1) FROM pg_sequences`,
    dbRoleSettings: `SELECT string_agg(setdatabase || ':' || setrole || ':' || array_to_string(setconfig, ';'), ',' ORDER BY 1) FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) OR (setdatabase = 0 AND setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user))`,
    statsReset: `SELECT coalesce(stats_reset::text, '') FROM pg_stat_database WHERE datname = current_database()`,
    advisoryLocks: `SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    preparedXacts: `SELECT count(*)::text FROM pg_prepared_xacts WHERE database = current_database()`,
    replicationSlots: `SELECT count(*)::text FROM pg_replication_slots WHERE slot_name = 'sneaky'`,
  };
  if (options.session) {
    Object.assign(probes, {
      settings: `SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM pg_settings WHERE name IN ('standard_conforming_strings', 'search_path', 'role', 'session_authorization', 'default_transaction_read_only', 'transaction_read_only', 'statement_timeout', 'client_encoding', 'TimeZone')`,
      preparedStatements: `SELECT count(*)::text FROM pg_prepared_statements`,
      cursors: `SELECT count(*)::text FROM pg_cursors`,
      channels: `SELECT count(*)::text FROM pg_listening_channels()`,
      user: `SELECT current_user || ':' || session_user`,
    });
  }
  const out: Record<string, string> = {};
  for (const [name, sql] of Object.entries(probes)) {
    const result = await sqlDatabaseOf(source, 'A data fingerprint').query<{ value: string | null }>(
      `SELECT (${sql}) AS value`,
    );
    out[name] = result.rows[0]?.value ?? '';
  }
  return out;
}
