// Deletes a foreign key would refuse: a row still referenced by another table's rows under a key
// that neither cascades nor sets null. A commit's check names them before Commit, so "fine" is not
// said of a delete the database then refuses; rows the same changes delete too do not count.
import type { ChangeToApply, Row, StagingConflict, TableInfo } from '@toolrow/datasource';

/** How many referencing rows a check reads per key at most, to say "N rows" or "more than N". */
export const REFERENCING_LIMIT = 50;

/**
 * The engine's read of the rows of `child` whose `columns` equal `values` (at most `limit`),
 * each as its primary-key columns: what a delete of the parent would leave dangling.
 */
export type ReadReferencing = (
  child: TableInfo,
  columns: readonly string[],
  values: readonly unknown[],
  limit: number,
) => Promise<Row[]>;

const keyText = (row: Row, columns: readonly string[]) =>
  JSON.stringify(columns.map((column) => String(row[column] ?? null)));

/** The staged deletes among `changes` that a foreign key would refuse, as conflicts. */
export async function referencedDeletes(
  changes: readonly ChangeToApply[],
  tables: readonly TableInfo[],
  read: ReadReferencing,
): Promise<StagingConflict[]> {
  const tableOf = (qualified: string) => tables.find((table) => table.qualifiedName === qualified);
  // What these changes delete, per table, by primary key: those rows stop referencing anything.
  const deleted = new Map<string, Set<string>>();
  for (const change of changes) {
    if (change.kind !== 'delete' || change.keyJson === null) continue;
    const table = tableOf(`${change.schema}.${change.table}`);
    if (!table) continue;
    const set = deleted.get(table.qualifiedName) ?? new Set<string>();
    set.add(keyText(JSON.parse(change.keyJson) as Row, table.primaryKey));
    deleted.set(table.qualifiedName, set);
  }
  const conflicts: StagingConflict[] = [];
  for (const change of changes) {
    if (change.kind !== 'delete' || change.beforeJson === null) continue;
    const table = tableOf(`${change.schema}.${change.table}`);
    if (!table) continue;
    const before = JSON.parse(change.beforeJson) as Row;
    for (const key of table.referencedBy) {
      if (key.onDelete !== 'no action' && key.onDelete !== 'restrict') continue;
      const child = tableOf(key.fromTable);
      if (!child || child.primaryKey.length === 0) continue;
      const values = key.toColumns.map((column) => before[column]);
      if (values.some((value) => value === null || value === undefined)) continue;
      const rows = await read(child, key.fromColumns, values, REFERENCING_LIMIT + 1);
      const going = deleted.get(child.qualifiedName);
      const left = rows.filter((row) => !going?.has(keyText(row, child.primaryKey)));
      if (left.length === 0) continue;
      conflicts.push({
        changeId: change.id,
        table: table.qualifiedName,
        key: change.keyJson === null ? null : (JSON.parse(change.keyJson) as Row),
        reason: 'referenced',
        current: before,
        changedColumns: [],
        referencedBy: {
          table: child.qualifiedName,
          columns: [...key.fromColumns],
          rows: Math.min(left.length, REFERENCING_LIMIT),
          more: left.length > REFERENCING_LIMIT,
        },
      });
      break;
    }
  }
  return conflicts;
}
