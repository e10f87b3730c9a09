/** The schema cache's picture of the user's tables (never the app-state or system schemas). */

export interface CommonValue {
  /** The value as the engine prints it (text). */
  value: string;
  /** Share of rows holding it, 0..1, when the engine's statistics say. */
  frequency?: number;
}

export interface ColumnInfo {
  name: string;
  /** The type as the engine names it (PostgreSQL: "character varying(120)"; SQLite: the declared type; DynamoDB: S, N …). */
  type: string;
  /** The engine's numeric id of the type, where it has one (PostgreSQL's OID); absent elsewhere. */
  typeId?: number;
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
  /** A few common values (from the engine's statistics, or a bounded sample); [] when unknown. */
  commonValues: CommonValue[];
  /** Lowest and highest value seen (histogram bounds), as text, when known. */
  min: string | null;
  max: string | null;
  /** Distinct values estimate, where the engine's statistics give one; null when unknown. */
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
  /** How the engine would create it (PostgreSQL's CREATE INDEX …, SQLite's own SQL), or a description. */
  definition: string;
  sizeBytes: number;
  /** Times the index was read since statistics were reset, where the engine counts them (else 0). */
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
  /** The engine's estimate of its rows (a planner's statistics, a service's count); cheap to read. */
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
