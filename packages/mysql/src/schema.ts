// The schema of the connection's database from information_schema: tables and views with their
// comments and row estimates, columns (full types, enum and set members, generated columns),
// indexes, and foreign keys both ways. Four catalog reads, whatever the number of tables.
import type { ColumnInfo, ForeignKeyInfo, IndexInfo, SchemaSnapshot, TableInfo } from '@toolrow/datasource';
import type { PoolConnection } from 'mysql2/promise';

type Action = ForeignKeyInfo['onDelete'];
const ACTIONS: Record<string, Action> = {
  'NO ACTION': 'no action',
  RESTRICT: 'restrict',
  CASCADE: 'cascade',
  'SET NULL': 'set null',
  'SET DEFAULT': 'set default',
};

type Record_ = Record<string, unknown>;

async function select(connection: PoolConnection, sql: string, values: unknown[]): Promise<Record_[]> {
  const [rows] = await connection.query({ sql, values, rowsAsArray: false });
  return rows as Record_[];
}

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
const commentOf = (value: unknown) => (text(value).trim() === '' ? null : text(value));

/** MariaDB writes a default as SQL (quoted text, NULL); MySQL as the value. Both as SQL text here. */
function defaultOf(value: unknown, extra: string): string | null {
  if (value === null || value === undefined) return null;
  const raw = String(value);
  if (raw === 'NULL') return null;
  return /DEFAULT_GENERATED/i.test(extra) || /^'.*'$/s.test(raw) || /^[\d.-]+$/.test(raw) || /\(/.test(raw)
    ? raw
    : `'${raw.replaceAll("'", "''")}'`;
}

export async function loadMysqlSchema(connection: PoolConnection, database: string): Promise<SchemaSnapshot> {
  const [tableRows, columnRows, indexRows, keyRows] = await Promise.all([
    select(
      connection,
      `SELECT TABLE_NAME AS name, TABLE_TYPE AS type, TABLE_ROWS AS row_count, DATA_LENGTH AS data_bytes,
              INDEX_LENGTH AS index_bytes, TABLE_COMMENT AS comment
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`,
      [database],
    ),
    select(
      connection,
      `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable,
              COLUMN_DEFAULT AS dflt, EXTRA AS extra, COLUMN_KEY AS column_key, COLUMN_COMMENT AS comment,
              ORDINAL_POSITION AS position
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
      [database],
    ),
    select(
      connection,
      `SELECT TABLE_NAME AS table_name, INDEX_NAME AS name, NON_UNIQUE AS non_unique, SEQ_IN_INDEX AS seq,
              COLUMN_NAME AS column_name, INDEX_TYPE AS index_type
         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
      [database],
    ),
    select(
      connection,
      `SELECT k.CONSTRAINT_NAME AS name, k.TABLE_NAME AS table_name, k.COLUMN_NAME AS column_name,
              k.REFERENCED_TABLE_SCHEMA AS ref_schema, k.REFERENCED_TABLE_NAME AS ref_table,
              k.REFERENCED_COLUMN_NAME AS ref_column, r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
         FROM information_schema.KEY_COLUMN_USAGE AS k
         JOIN information_schema.REFERENTIAL_CONSTRAINTS AS r
           ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
        WHERE k.TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
        ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      [database],
    ),
  ]);
  const columnsBy = new Map<string, Record_[]>();
  for (const row of columnRows) {
    const list = columnsBy.get(text(row.table_name)) ?? [];
    list.push(row);
    columnsBy.set(text(row.table_name), list);
  }
  const indexesBy = new Map<string, Map<string, { unique: boolean; columns: string[]; type: string }>>();
  for (const row of indexRows) {
    const byName = indexesBy.get(text(row.table_name)) ?? new Map();
    indexesBy.set(text(row.table_name), byName);
    const index = byName.get(text(row.name)) ?? {
      unique: Number(row.non_unique) === 0,
      columns: [],
      type: text(row.index_type),
    };
    index.columns.push(row.column_name === null ? '(expression)' : text(row.column_name));
    byName.set(text(row.name), index);
  }
  const keysBy = new Map<string, ForeignKeyInfo[]>();
  for (const row of keyRows) {
    const table = text(row.table_name);
    const list = keysBy.get(table) ?? [];
    keysBy.set(table, list);
    let key = list.find((each) => each.name === text(row.name));
    if (!key) {
      key = {
        name: text(row.name),
        fromTable: `${database}.${table}`,
        fromColumns: [],
        toTable: `${text(row.ref_schema) || database}.${text(row.ref_table)}`,
        toColumns: [],
        onUpdate: ACTIONS[text(row.on_update)] ?? 'no action',
        onDelete: ACTIONS[text(row.on_delete)] ?? 'no action',
      };
      list.push(key);
    }
    key.fromColumns.push(text(row.column_name));
    key.toColumns.push(text(row.ref_column));
  }
  const tables: TableInfo[] = tableRows.map((row) => {
    const name = text(row.name);
    const kind = /VIEW/i.test(text(row.type)) ? 'view' : 'table';
    const indexes = [...(indexesBy.get(name) ?? new Map()).entries()].map(
      ([indexName, index]): IndexInfo => ({
        name: indexName,
        columns: index.columns,
        unique: index.unique,
        primary: indexName === 'PRIMARY',
        definition:
          indexName === 'PRIMARY'
            ? `PRIMARY KEY (${index.columns.join(', ')})`
            : `${index.unique ? 'UNIQUE ' : ''}INDEX ${indexName} USING ${index.type} (${index.columns.join(', ')})`,
        sizeBytes: 0,
        scans: 0,
      }),
    );
    const primaryKey = indexes.find((index) => index.primary)?.columns ?? [];
    const columns = (columnsBy.get(name) ?? []).map((column, index): ColumnInfo => {
      const extra = text(column.extra);
      return {
        name: text(column.name),
        type: text(column.type),
        nullable: text(column.nullable) === 'YES',
        default: defaultOf(column.dflt, extra),
        generated: /auto_increment|GENERATED/i.test(extra) && !/DEFAULT_GENERATED/i.test(extra),
        position: index + 1,
        primaryKey: primaryKey.includes(text(column.name)),
        comment: commentOf(column.comment),
        commonValues: [],
        min: null,
        max: null,
        distinctEstimate: null,
        nullFraction: null,
      };
    });
    const dataBytes = Number(row.data_bytes ?? 0);
    return {
      schema: database,
      name,
      qualifiedName: `${database}.${name}`,
      kind,
      // MySQL writes 'VIEW' as every view's comment.
      comment: kind === 'view' && text(row.comment) === 'VIEW' ? null : commentOf(row.comment),
      columns,
      primaryKey,
      indexes,
      foreignKeys: kind === 'table' ? (keysBy.get(name) ?? []) : [],
      referencedBy: [],
      rowEstimate: kind === 'table' ? Number(row.row_count ?? 0) : 0,
      tableBytes: dataBytes,
      totalBytes: dataBytes + Number(row.index_bytes ?? 0),
    };
  });
  for (const table of tables)
    for (const key of table.foreignKeys)
      tables.find((each) => each.qualifiedName === key.toTable)?.referencedBy.push(key);
  return { tables, refreshedAt: new Date() };
}
