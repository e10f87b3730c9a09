/** The schema cache's picture of the user's tables (never the app-state or system schemas). */

export interface CommonValue {
  /** The value as Postgres prints it (text). */
  value: string;
  /** Share of rows holding it, 0..1, when known from pg_stats. */
  frequency?: number;
}

export interface ColumnInfo {
  name: string;
  /** As Postgres formats it: "integer", "character varying(120)", "timestamp with time zone", "text[]". */
  type: string;
  /** Type OID, e.g. 23 for integer. */
  typeId: number;
  nullable: boolean;
  /** The default expression, e.g. "nextval('orders_id_seq'::regclass)" or "now()"; null when none. */
  default: string | null;
  /** Filled by the database: an identity or generated column (inserts may leave it out). */
  generated: boolean;
  /** 1-based position in the table. */
  position: number;
  /** Part of the primary key. */
  primaryKey: boolean;
  comment: string | null;
  /** A few common values (from pg_stats after ANALYZE, or a bounded sample); [] when unknown. */
  commonValues: CommonValue[];
  /** Lowest and highest value seen (histogram bounds), as text, when known. */
  min: string | null;
  max: string | null;
  /** Distinct values estimate (pg_stats.n_distinct resolved to a count); null when unknown. */
  distinctEstimate: number | null;
  /** Share of NULLs, 0..1; null when unknown. */
  nullFraction: number | null;
}

export interface IndexInfo {
  name: string;
  /** Column names, or the expression text for an expression index. */
  columns: string[];
  unique: boolean;
  primary: boolean;
  /** CREATE INDEX … as pg_get_indexdef prints it. */
  definition: string;
  sizeBytes: number;
  /** Index scans since statistics were reset (pg_stat_user_indexes.idx_scan). */
  scans: number;
}

export interface ForeignKeyInfo {
  name: string;
  /** Qualified names ("public.order_items"). */
  fromTable: string;
  fromColumns: string[];
  toTable: string;
  toColumns: string[];
  onUpdate: 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';
  onDelete: 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';
}

export interface TableInfo {
  schema: string;
  name: string;
  /** "schema.name", as tools print it and as resolveTable accepts it. */
  qualifiedName: string;
  kind: 'table' | 'view' | 'materialized view' | 'partitioned table' | 'foreign table';
  comment: string | null;
  columns: ColumnInfo[];
  /** Primary key column names in key order; [] when the table has none. */
  primaryKey: string[];
  indexes: IndexInfo[];
  /** Foreign keys from this table to others. */
  foreignKeys: ForeignKeyInfo[];
  /** Foreign keys from other tables to this one. */
  referencedBy: ForeignKeyInfo[];
  /** Planner estimate (pg_class.reltuples, or n_live_tup when never analysed); never a scan. */
  rowEstimate: number;
  /** Heap size and total size with indexes and TOAST, in bytes. */
  tableBytes: number;
  totalBytes: number;
  /**
   * Rows are schemaless (DynamoDB items): `columns` are the attributes a sample saw, and a staged
   * change may write an attribute no sampled item has, unless the name is close to a known one.
   */
  openColumns?: boolean;
}

export interface SchemaSnapshot {
  tables: TableInfo[];
  refreshedAt: Date;
}
