import {
  type ChangeToApply,
  type ChangeWriter,
  type DataSource,
  DEFAULT_PROFILE,
  featureOf,
  type TableInfo,
} from '@toolrow/datasource';
import { jsonText, type StateDb, type StateQueries } from '../store/state-db.ts';
import { COMMIT_LEASE_MS, checkStageable, holderId } from './shared.ts';
import type { CommitPoint, StagingFilter, StagingOptions } from './types.ts';

/** What every part of one staging area shares: its stores, its connection and this process's claim. */
export interface StagingContext {
  readonly db: StateDb;
  readonly q: StateQueries;
  readonly dialect: StateDb['dialect'];
  readonly source: DataSource;
  /** The connection whose changes these are. */
  readonly connection: string;
  /** This process, as a commit's holder. */
  readonly holder: string;
  readonly leaseMs: number;
  /** The engine's change writer; refuses ('unsupported') on an engine without staged writes. */
  writer(): ChangeWriter;
  /** A test's hook at a point of a commit. */
  fault(point: CommitPoint): Promise<void>;
}

/** The context of a staging area over `db` for `source`'s connection. */
export function stagingContext(
  db: StateDb,
  source: DataSource,
  options: StagingOptions = {},
): StagingContext {
  return {
    db,
    q: db.q,
    dialect: db.dialect,
    source,
    connection: options.connection ?? DEFAULT_PROFILE,
    holder: options.holder ?? holderId(),
    leaseMs: options.leaseMs ?? COMMIT_LEASE_MS,
    // Staging on an engine without staged writes lists nothing it could not commit: each use refuses.
    writer: () => featureOf(source, 'changes'),
    fault: async (point) => {
      await options.faults?.(point);
    },
  };
}

export async function tableFor(ctx: StagingContext, name: string): Promise<TableInfo> {
  const table = await ctx.source.schema.resolveTable(name);
  checkStageable(table);
  return table;
}

export async function tableFilterOf(
  ctx: StagingContext,
  filter: StagingFilter | undefined,
): Promise<TableInfo | undefined> {
  if (!filter?.table) return undefined;
  return ctx.source.schema.resolveTable(filter.table);
}

/** Staged changes as the data side applies them, in id order. */
export async function changesWhere(
  ctx: StagingContext,
  narrow: (qb: ReturnType<typeof selectChanges>) => ReturnType<typeof selectChanges>,
): Promise<ChangeToApply[]> {
  const rows = await narrow(selectChanges(ctx)).orderBy('id').execute();
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind as ChangeToApply['kind'],
    schema: row.table_schema as string,
    table: row.table_name as string,
    keyJson: (row.key_json as string | null) ?? null,
    beforeJson: (row.before_json as string | null) ?? null,
    valuesJson: (row.values_json as string | null) ?? null,
  }));
}

export function selectChanges(ctx: StagingContext) {
  return ctx.q
    .selectFrom('staged_changes')
    .select([
      'id',
      'kind',
      'table_schema',
      'table_name',
      jsonText(ctx.dialect, 'row_key').as('key_json'),
      jsonText(ctx.dialect, 'before').as('before_json'),
      jsonText(ctx.dialect, 'values').as('values_json'),
    ]);
}
