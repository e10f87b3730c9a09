import {
  APP_SCHEMA,
  type ColumnInfo,
  createSnapshotCache,
  type ForeignKeyInfo,
  type IndexInfo,
  type Row,
  type SchemaCache,
  type SchemaSnapshot,
  type TableInfo,
} from '@toolrow/datasource';
import type { Database, Queryable } from './database.ts';
import { quoteQualified } from './sql.ts';

const EXCLUDED = `n.nspname NOT IN ('pg_catalog', 'information_schema', '${APP_SCHEMA}')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'`;

const KINDS: Record<string, TableInfo['kind']> = {
  r: 'table',
  v: 'view',
  m: 'materialized view',
  p: 'partitioned table',
  f: 'foreign table',
};

const FK_ACTIONS: Record<string, ForeignKeyInfo['onDelete']> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

const TABLES_SQL = `
SELECT c.oid::int8 AS oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
       obj_description(c.oid, 'pg_class') AS comment, c.reltuples::float8 AS reltuples,
       s.n_live_tup::int8 AS live, pg_relation_size(c.oid)::int8 AS table_bytes,
       pg_total_relation_size(c.oid)::int8 AS total_bytes
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition AND ${EXCLUDED}
ORDER BY n.nspname, c.relname`;

const COLUMNS_SQL = `
SELECT a.attrelid::int8 AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       a.atttypid::int8 AS type_id, NOT a.attnotnull AS nullable, a.attnum::int AS position,
       (a.attidentity <> '' OR a.attgenerated <> '') AS generated,
       pg_get_expr(d.adbin, d.adrelid) AS "default", col_description(a.attrelid, a.attnum) AS comment
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'm', 'p', 'f') AND ${EXCLUDED}
ORDER BY a.attrelid, a.attnum`;

const INDEXES_SQL = `
SELECT i.indrelid::int8 AS oid, ic.relname AS name, i.indisunique AS unique, i.indisprimary AS primary,
       pg_get_indexdef(i.indexrelid) AS definition, pg_relation_size(i.indexrelid)::int8 AS size_bytes,
       COALESCE(s.idx_scan, 0)::int8 AS scans,
       ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k ORDER BY k) AS columns
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_user_indexes s ON s.indexrelid = i.indexrelid
WHERE ${EXCLUDED}
ORDER BY i.indrelid, ic.relname`;

const FOREIGN_KEYS_SQL = `
SELECT k.conname AS name, k.conrelid::int8 AS from_oid, k.confrelid::int8 AS to_oid,
       fn.nspname AS from_schema, fc.relname AS from_table, tn.nspname AS to_schema, tc.relname AS to_table,
       ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.ord) AS from_columns,
       ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS u(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.ord) AS to_columns,
       k.confupdtype::text AS on_update, k.confdeltype::text AS on_delete
FROM pg_constraint k
JOIN pg_class fc ON fc.oid = k.conrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace
JOIN pg_class tc ON tc.oid = k.confrelid JOIN pg_namespace tn ON tn.oid = tc.relnamespace
WHERE k.contype = 'f' AND (fn.nspname NOT IN ('pg_catalog', 'information_schema', '${APP_SCHEMA}'))
ORDER BY k.conname`;

const STATS_SQL = `
SELECT s.schemaname AS schema, s.tablename AS table, s.attname AS column, s.null_frac::float8 AS null_frac,
       s.n_distinct::float8 AS n_distinct, s.most_common_vals::text AS common_values,
       s.most_common_freqs::float8[] AS common_freqs, s.histogram_bounds::text AS bounds
FROM pg_stats s
WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema', '${APP_SCHEMA}') AND NOT s.inherited`;

const COMMON_VALUES = 10;

/** Parses a one-dimensional Postgres array literal ('{a,"b c",NULL}') into strings. */
export function parseArrayLiteral(text: string | null): (string | null)[] {
  if (!text || text.length < 2 || text[0] !== '{') return [];
  const values: (string | null)[] = [];
  let index = 1;
  while (index < text.length - 1) {
    let value = '';
    let quoted = false;
    if (text[index] === '"') {
      quoted = true;
      index++;
      while (index < text.length && text[index] !== '"') {
        if (text[index] === '\\') index++;
        value += text[index];
        index++;
      }
      index++; // closing quote
    } else {
      let depth = 0;
      while (index < text.length - 1 && (depth > 0 || text[index] !== ',')) {
        if (text[index] === '{') depth++;
        if (text[index] === '}') depth--;
        value += text[index];
        index++;
      }
    }
    values.push(!quoted && value === 'NULL' ? null : value);
    index++; // comma
  }
  return values;
}

function statKey(schema: string, table: string, column: string): string {
  return JSON.stringify([schema, table, column]);
}

/** Reads the user's tables from the catalogs (excludes toolrow_app, pg_catalog, information_schema, pg_toast). */
export async function loadSchema(db: Queryable): Promise<SchemaSnapshot> {
  const [tables, columns, indexes, foreignKeys, stats] = [
    await db.query(TABLES_SQL),
    await db.query(COLUMNS_SQL),
    await db.query(INDEXES_SQL),
    await db.query(FOREIGN_KEYS_SQL),
    await db.query(STATS_SQL),
  ];
  const statsByColumn = new Map<string, Row>();
  for (const row of stats.rows)
    statsByColumn.set(statKey(row.schema as string, row.table as string, row.column as string), row);

  const byOid = new Map<number, TableInfo>();
  const result: TableInfo[] = [];
  for (const row of tables.rows) {
    const reltuples = Number(row.reltuples);
    const table: TableInfo = {
      schema: row.schema as string,
      name: row.name as string,
      qualifiedName: `${row.schema}.${row.name}`,
      kind: KINDS[row.kind as string] ?? 'table',
      comment: (row.comment as string | null) ?? null,
      columns: [],
      primaryKey: [],
      indexes: [],
      foreignKeys: [],
      referencedBy: [],
      rowEstimate: Math.round(reltuples >= 0 ? reltuples : Number(row.live ?? 0)),
      tableBytes: Number(row.table_bytes),
      totalBytes: Number(row.total_bytes),
    };
    byOid.set(Number(row.oid), table);
    result.push(table);
  }
  for (const row of columns.rows) {
    const table = byOid.get(Number(row.oid));
    if (!table) continue;
    const stat = statsByColumn.get(statKey(table.schema, table.name, row.name as string));
    const values = parseArrayLiteral((stat?.common_values as string | null) ?? null);
    const freqs = (stat?.common_freqs as number[] | null) ?? [];
    const bounds = parseArrayLiteral((stat?.bounds as string | null) ?? null);
    const nDistinct = stat ? Number(stat.n_distinct) : null;
    const column: ColumnInfo = {
      name: row.name as string,
      type: row.type as string,
      typeId: Number(row.type_id),
      nullable: row.nullable as boolean,
      default: (row.default as string | null) ?? null,
      generated: row.generated === true,
      position: Number(row.position),
      primaryKey: false,
      comment: (row.comment as string | null) ?? null,
      commonValues: values
        .slice(0, COMMON_VALUES)
        .flatMap((value, index) =>
          value === null
            ? []
            : [freqs[index] === undefined ? { value } : { value, frequency: freqs[index]! }],
        ),
      min: bounds[0] ?? null,
      max: bounds.length > 0 ? (bounds[bounds.length - 1] ?? null) : null,
      distinctEstimate:
        nDistinct === null
          ? null
          : nDistinct >= 0
            ? Math.round(nDistinct)
            : Math.round(-nDistinct * table.rowEstimate),
      nullFraction: stat ? Number(stat.null_frac) : null,
    };
    table.columns.push(column);
  }
  for (const row of indexes.rows) {
    const table = byOid.get(Number(row.oid));
    if (!table) continue;
    const index: IndexInfo = {
      name: row.name as string,
      columns: row.columns as string[],
      unique: row.unique as boolean,
      primary: row.primary as boolean,
      definition: row.definition as string,
      sizeBytes: Number(row.size_bytes),
      scans: Number(row.scans),
    };
    table.indexes.push(index);
    if (index.primary) {
      table.primaryKey = index.columns;
      for (const column of table.columns) if (index.columns.includes(column.name)) column.primaryKey = true;
    }
  }
  for (const row of foreignKeys.rows) {
    const key: ForeignKeyInfo = {
      name: row.name as string,
      fromTable: `${row.from_schema}.${row.from_table}`,
      fromColumns: row.from_columns as string[],
      toTable: `${row.to_schema}.${row.to_table}`,
      toColumns: row.to_columns as string[],
      onUpdate: FK_ACTIONS[row.on_update as string] ?? 'no action',
      onDelete: FK_ACTIONS[row.on_delete as string] ?? 'no action',
    };
    byOid.get(Number(row.from_oid))?.foreignKeys.push(key);
    byOid.get(Number(row.to_oid))?.referencedBy.push(key);
  }
  return { tables: result, refreshedAt: new Date() };
}

/** ANALYZE the user's tables that were never analysed (or all with `all`); bounded by Postgres's sample size. */
async function analyze(db: Database, all: boolean): Promise<void> {
  const result = await db.query<{ schema: string; name: string }>(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'm', 'p') AND ${EXCLUDED} AND ($1 OR c.reltuples < 0)`,
    [all],
  );
  for (const table of result.rows) {
    try {
      await db.query(`ANALYZE ${quoteQualified(table.schema, table.name)}`);
    } catch {
      // Not the owner, or a read-only server: the cache works without fresh statistics.
    }
  }
}

export function createSchemaCache(db: Database): SchemaCache {
  return createSnapshotCache(async (options) => {
    await analyze(db, options.analyze === true);
    return loadSchema(db);
  });
}
