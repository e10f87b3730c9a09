import {
  type ChangeToApply,
  type ChangeWriter,
  DataSourceError,
  type Row,
  type SchemaCache,
  type TableInfo,
  type TransactionStatus,
  type WriterInfo,
} from '@toolrow/datasource';
import { type CommitDialect, checkChanges, commitChanges } from '@toolrow/datasource-utils';
import type { Database, Queryable } from './database.ts';
import { quoteIdent, quoteQualified } from './sql.ts';

const tableRef = (table: TableInfo) => quoteQualified(table.schema, table.name);

/** `alias.pk = k.pk AND …` against a key record `k` built from JSON. */
function keyJoin(table: TableInfo, alias: string): string {
  return table.primaryKey
    .map((column) => `${alias}.${quoteIdent(column)} = k.${quoteIdent(column)}`)
    .join(' AND ');
}

const keyRecord = (table: TableInfo, param: string) =>
  `jsonb_populate_record(NULL::${tableRef(table)}, ${param}::jsonb) AS k`;

const PRIVILEGE: Record<ChangeToApply['kind'], string> = {
  insert: 'INSERT',
  update: 'UPDATE',
  delete: 'DELETE',
};

/** One change inside the commit's transaction (its row locked and checked already). */
async function applyOne(tx: Queryable, change: ChangeToApply, table: TableInfo): Promise<void> {
  const values = change.valuesJson === null ? {} : (JSON.parse(change.valuesJson) as Row);
  const columns = Object.keys(values).map((name) => quoteIdent(name));
  if (change.kind === 'insert') {
    await tx.query(
      `INSERT INTO ${tableRef(table)} (${columns.join(', ')})
       SELECT ${columns.map((column) => `r.${column}`).join(', ')}
       FROM jsonb_populate_record(NULL::${tableRef(table)}, $1::jsonb) AS r`,
      [change.valuesJson],
    );
    return;
  }
  const result =
    change.kind === 'update'
      ? await tx.query(
          `UPDATE ${tableRef(table)} AS t SET ${columns.map((column) => `${column} = r.${column}`).join(', ')}
           FROM ${keyRecord(table, '$1')}, jsonb_populate_record(NULL::${tableRef(table)}, $2::jsonb) AS r
           WHERE ${keyJoin(table, 't')}`,
          [change.keyJson, change.valuesJson],
        )
      : await tx.query(
          `DELETE FROM ${tableRef(table)} AS t USING ${keyRecord(table, '$1')} WHERE ${keyJoin(table, 't')}`,
          [change.keyJson],
        );
  if (result.rowCount === 0) throw new Error('the row is gone (an earlier change in this commit deleted it)');
}
export interface ChangeWriterOptions {
  /** The user's data, for the read-only helpers and transaction status. */
  db: Database;
  schema: SchemaCache;
  /** The connection commits are written through (opened on first use; may be `db` itself). */
  openWriter: () => Promise<Database>;
  writer: WriterInfo;
  /** Closes the writer when it is a connection of its own. */
  ownsWriter: boolean;
}

export function createChangeWriter(options: ChangeWriterOptions): ChangeWriter {
  const { db, schema, writer } = options;
  let opened: Promise<Database> | undefined;
  const writerDb = () => {
    opened ??= options.openWriter().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };

  function permissionError(table: string, privilege: string, cause?: unknown): DataSourceError {
    const how =
      writer.source === 'TOOLROW_COMMIT_URL'
        ? 'Grant that user the right, or point TOOLROW_COMMIT_URL at a user who has it'
        : 'Set TOOLROW_COMMIT_URL to a PostgreSQL user with write rights (Toolrow reads through DATABASE_URL and writes commits through TOOLROW_COMMIT_URL)';
    return new DataSourceError(
      'permission',
      `Committing needs the right to ${privilege} on ${table}, and the commit connection (${writer.description}) does not have it. ${how}. Nothing was applied; the staged changes are kept.`,
      cause === undefined ? undefined : { cause },
    );
  }

  async function checkPrivileges(tx: Queryable, changes: readonly ChangeToApply[]): Promise<void> {
    const needed = new Map<string, { table: string; label: string; privilege: string }>();
    for (const change of changes) {
      const table = quoteQualified(change.schema, change.table);
      const privilege = PRIVILEGE[change.kind];
      needed.set(`${table} ${privilege}`, { table, label: `${change.schema}.${change.table}`, privilege });
    }
    for (const { table, label, privilege } of needed.values()) {
      const result = await tx.query<{ ok: boolean }>('SELECT has_table_privilege($1, $2) AS ok', [
        table,
        privilege,
      ]);
      if (!result.rows[0]?.ok) throw permissionError(label, privilege);
    }
  }

  const dialect: CommitDialect<Queryable> = {
    transaction: async (work) => (await writerDb()).transaction(work),
    transactionId: async (tx) =>
      (await tx.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid,
    checkPrivileges,
    async rowNow(tx, table, change, lock) {
      const found = (
        await tx.query<{ current: string; same: boolean; changed: string[] | null }>(
          `SELECT to_jsonb(t.*)::text AS current, to_jsonb(t.*) = $2::jsonb AS same,
                  ARRAY(SELECT e.key FROM jsonb_each(to_jsonb(t.*)) AS e
                        WHERE e.value IS DISTINCT FROM $2::jsonb -> e.key ORDER BY e.key) AS changed
           FROM ${tableRef(table)} AS t, ${keyRecord(table, '$1')}
           WHERE ${keyJoin(table, 't')}${lock ? ' FOR UPDATE OF t' : ''}`,
          [change.keyJson, change.beforeJson],
        )
      ).rows[0];
      return found && { current: found.current, same: found.same, changed: found.changed ?? [] };
    },
    applyOne,
    applyError: (change, error) =>
      (error as { code?: string }).code === '42501'
        ? permissionError(quoteQualified(change.schema, change.table), PRIVILEGE[change.kind], error)
        : undefined,
    async referencing(tx, child, columns, values, limit) {
      const found = await tx.query<{ row: Row | string }>(
        `SELECT to_jsonb(c.*) AS row FROM ${tableRef(child)} AS c, jsonb_populate_record(NULL::${tableRef(child)}, $1::jsonb) AS k
         WHERE ${columns.map((column) => `c.${quoteIdent(column)} = k.${quoteIdent(column)}`).join(' AND ')} LIMIT ${limit}`,
        [JSON.stringify(Object.fromEntries(columns.map((column, index) => [column, values[index]])))],
      );
      return found.rows.map(({ row }) => (typeof row === 'string' ? (JSON.parse(row) as Row) : row));
    },
  };

  return {
    writer,

    async currentRowJson(table, key) {
      const result = await db.query<{ row: string }>(
        `SELECT to_jsonb(t.*)::text AS row FROM ${tableRef(table)} AS t, ${keyRecord(table, '$1')}
         WHERE ${keyJoin(table, 't')}`,
        [JSON.stringify(key)],
      );
      return result.rows[0]?.row ?? null;
    },

    async canonicalJson(table, values) {
      const result = await db.query<{ values: string }>(
        `SELECT (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(to_jsonb(r)) AS e
                 WHERE e.key = ANY($2::text[]))::text AS values
         FROM jsonb_populate_record(NULL::${tableRef(table)}, $1::jsonb) AS r`,
        [JSON.stringify(values), Object.keys(values)],
      );
      return result.rows[0]!.values;
    },

    apply: (changes, applyOptions) => commitChanges(dialect, schema, changes, applyOptions),

    check: (changes) => checkChanges(dialect, db, schema, changes),

    async transactionStatus(xid): Promise<TransactionStatus> {
      const target = await writerDb();
      let result: { rows: { status: string | null }[] };
      try {
        result = await target.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [
          xid,
        ]);
      } catch (error) {
        // After a crash the database restarts below an id that never reached its log: such a
        // transaction cannot have committed (a commit record would have carried the id forward).
        if (/is in the future/.test((error as Error).message)) return 'aborted';
        throw error;
      }
      const status = result.rows[0]?.status;
      return status === 'committed' || status === 'aborted' || status === 'in progress' ? status : 'unknown';
    },

    async close() {
      if (!options.ownsWriter || !opened) return;
      const target = await opened.catch(() => undefined);
      await target?.close();
    },
  };
}
