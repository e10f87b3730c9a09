import type { Database } from './database.ts';
import type { ColumnInfo, SchemaSnapshot, TableInfo } from './schema-types.ts';

export interface RefreshOptions {
  /** Run ANALYZE on the user's tables first so row estimates and common values are fresh. */
  analyze?: boolean;
}

/** A column match of SchemaCache.findColumns. */
export interface ColumnMatch {
  table: string;
  column: ColumnInfo;
}

/**
 * The schema cache: loaded once on first use, refreshed on demand and after staging commits.
 * The silent tools read only this (and app state), never table data.
 */
export interface SchemaCache {
  /** The snapshot, loading it on first use. */
  get(): Promise<SchemaSnapshot>;
  /** The snapshot if loaded, else undefined (never queries). */
  readonly current: SchemaSnapshot | undefined;
  refresh(options?: RefreshOptions): Promise<SchemaSnapshot>;
  /** Marks the snapshot stale (after a commit or DDL): the next get() reloads it, and current is undefined until then. */
  invalidate(): void;
  /**
   * A table by the name a person or a model types: "orders", "public.orders", "Orders",
   * "\"Mixed Case\"". Throws UnknownNameError (code 'unknown-table') naming the nearest tables.
   */
  resolveTable(name: string): Promise<TableInfo>;
  /** Throws UnknownNameError (code 'unknown-column') naming the nearest columns of that table. */
  resolveColumn(table: TableInfo, column: string): ColumnInfo;
  /**
   * Columns whose name or comment contains `text` (case-insensitive), across every table: exact
   * names first, then names containing it, then comments.
   */
  findColumns(text: string): Promise<ColumnMatch[]>;
}

export type { Database };
