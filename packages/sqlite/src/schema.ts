// The schema of a SQLite file from its own catalog: sqlite_schema, and the table_xinfo,
// foreign_key_list and index_list pragmas, read on a read-only connection of the main thread (a
// catalog read is short). Row counts come from sqlite_stat1 where ANALYZE left one, else count(*).
import { DatabaseSync } from 'node:sqlite';
import type { ColumnInfo, ForeignKeyInfo, IndexInfo, SchemaSnapshot, TableInfo } from '@toolrow/datasource';
import { quoteIdent } from './sql.ts';

/** SQLite's one schema of a file's own tables. */
export const MAIN = 'main';

type Action = ForeignKeyInfo['onDelete'];
const ACTIONS: Record<string, Action> = {
  'NO ACTION': 'no action',
  RESTRICT: 'restrict',
  CASCADE: 'cascade',
  'SET NULL': 'set null',
  'SET DEFAULT': 'set default',
};

interface XInfo {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
  hidden: number;
}

function columnsOf(db: DatabaseSync, table: string): { columns: ColumnInfo[]; primaryKey: string[] } {
  const rows = db.prepare(`PRAGMA main.table_xinfo(${quoteIdent(table)})`).all() as unknown as XInfo[];
  const visible = rows.filter((row) => row.hidden !== 1);
  const primaryKey = visible
    .filter((row) => row.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((row) => row.name);
  const columns = visible.map(
    (row, index): ColumnInfo => ({
      name: row.name,
      type: row.type || 'any',
      typeId: 0,
      nullable: row.notnull === 0 && !primaryKey.includes(row.name),
      default: row.dflt_value,
      // An INTEGER PRIMARY KEY is the rowid: SQLite fills it when an insert leaves it out.
      generated:
        row.hidden === 2 ||
        row.hidden === 3 ||
        (primaryKey.length === 1 && primaryKey[0] === row.name && /^integer$/i.test(row.type)),
      position: index + 1,
      primaryKey: primaryKey.includes(row.name),
      comment: null,
      commonValues: [],
      min: null,
      max: null,
      distinctEstimate: null,
      nullFraction: null,
    }),
  );
  return { columns, primaryKey };
}

function foreignKeysOf(db: DatabaseSync, table: string, columns: ColumnInfo[]): ForeignKeyInfo[] {
  const rows = db.prepare(`PRAGMA main.foreign_key_list(${quoteIdent(table)})`).all() as unknown as {
    id: number;
    table: string;
    from: string;
    to: string | null;
    on_update: string;
    on_delete: string;
  }[];
  const byId = new Map<number, ForeignKeyInfo>();
  for (const row of rows) {
    let key = byId.get(row.id);
    if (!key) {
      key = {
        name: `${table}_fk_${row.id}`,
        fromTable: `${MAIN}.${table}`,
        fromColumns: [],
        toTable: `${MAIN}.${row.table}`,
        toColumns: [],
        onUpdate: ACTIONS[row.on_update] ?? 'no action',
        onDelete: ACTIONS[row.on_delete] ?? 'no action',
      };
      byId.set(row.id, key);
    }
    key.fromColumns.push(row.from);
    // A reference without columns names the parent's primary key.
    if (row.to) key.toColumns.push(row.to);
  }
  for (const key of byId.values()) {
    if (key.toColumns.length === 0) {
      const parent = key.toTable.slice(MAIN.length + 1);
      key.toColumns = columnsOf(db, parent).primaryKey;
    }
  }
  void columns;
  return [...byId.values()];
}

function indexesOf(db: DatabaseSync, table: string): IndexInfo[] {
  const list = db.prepare(`PRAGMA main.index_list(${quoteIdent(table)})`).all() as unknown as {
    name: string;
    unique: number;
    origin: string;
  }[];
  const definitions = new Map(
    (
      db
        .prepare("SELECT name, sql FROM main.sqlite_schema WHERE type = 'index' AND tbl_name = ?")
        .all(table) as {
        name: string;
        sql: string | null;
      }[]
    ).map((row) => [row.name, row.sql]),
  );
  return list.map((index) => {
    const columns = (
      db.prepare(`PRAGMA main.index_info(${quoteIdent(index.name)})`).all() as unknown as {
        name: string | null;
      }[]
    ).map((column) => column.name ?? '(expression)');
    return {
      name: index.name,
      columns,
      unique: index.unique === 1,
      primary: index.origin === 'pk',
      definition:
        definitions.get(index.name) ??
        `${index.origin === 'pk' ? 'PRIMARY KEY' : 'UNIQUE'} (${columns.join(', ')})`,
      sizeBytes: 0,
      scans: 0,
    };
  });
}

function rowEstimateOf(db: DatabaseSync, table: string, stats: Map<string, number>): number {
  const known = stats.get(table);
  if (known !== undefined) return known;
  const row = db.prepare(`SELECT count(*) AS n FROM main.${quoteIdent(table)}`).get() as { n: number };
  return Number(row.n);
}

/** Reads the file's tables and views (never sqlite_* internals). */
export function loadSqliteSchema(path: string): SchemaSnapshot {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  try {
    const objects = db
      .prepare(
        "SELECT name, type FROM main.sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      )
      .all() as { name: string; type: 'table' | 'view' }[];
    const stats = new Map<string, number>();
    const hasStats = db.prepare("SELECT 1 FROM main.sqlite_schema WHERE name = 'sqlite_stat1'").get();
    if (hasStats) {
      for (const row of db
        .prepare('SELECT tbl, stat FROM main.sqlite_stat1 WHERE idx IS NULL OR idx = tbl')
        .all() as {
        tbl: string;
        stat: string;
      }[]) {
        stats.set(row.tbl, Number.parseInt(row.stat, 10));
      }
    }
    const tables: TableInfo[] = objects.map((object) => {
      const { columns, primaryKey } = columnsOf(db, object.name);
      return {
        schema: MAIN,
        name: object.name,
        qualifiedName: `${MAIN}.${object.name}`,
        kind: object.type,
        comment: null,
        columns,
        primaryKey,
        indexes: object.type === 'table' ? indexesOf(db, object.name) : [],
        foreignKeys: object.type === 'table' ? foreignKeysOf(db, object.name, columns) : [],
        referencedBy: [],
        rowEstimate: object.type === 'table' ? rowEstimateOf(db, object.name, stats) : 0,
        tableBytes: 0,
        totalBytes: 0,
      };
    });
    for (const table of tables) {
      for (const key of table.foreignKeys)
        tables.find((each) => each.qualifiedName === key.toTable)?.referencedBy.push(key);
    }
    return { tables, refreshedAt: new Date() };
  } finally {
    db.close();
  }
}
