// Saved views and queries.
import { DataSourceError, didYouMean, nearestNames, type Row } from '@toolrow/datasource';
import type { SavedSpec } from '../app-types.ts';
import { date, jsonValue, type StateDb } from '../store/state-db.ts';

/** What the store keeps of specs. */
export interface SpecRepository {
  list(): Promise<SavedSpec[]>;
  /** Throws DataSourceError 'not-found' naming the saved specs there are. */
  get(name: string): Promise<SavedSpec>;
  /** Creates or replaces by name. */
  save(spec: Pick<SavedSpec, 'name' | 'kind' | 'spec'> & { description?: string | null }): Promise<SavedSpec>;
  delete(name: string): Promise<boolean>;
}

const toSpec = (row: Row): SavedSpec => ({
  name: row.name as string,
  kind: row.kind as SavedSpec['kind'],
  description: (row.description as string | null) ?? null,
  spec: jsonValue<Record<string, unknown>>(row.spec),
  createdAt: date(row.created_at),
  updatedAt: date(row.updated_at),
});

export function createSpecs(db: StateDb): SpecRepository {
  const { q } = db;
  return {
    async list() {
      return (await q.selectFrom('saved_specs').selectAll().orderBy('name').execute()).map(toSpec);
    },
    async get(name) {
      const row = await q.selectFrom('saved_specs').selectAll().where('name', '=', name).executeTakeFirst();
      if (row) return toSpec(row);
      const names = (await q.selectFrom('saved_specs').select('name').orderBy('name').execute()).map(
        (spec) => spec.name,
      );
      throw new DataSourceError(
        'not-found',
        `No saved spec named '${name}'.${didYouMean(nearestNames(name, names))} ${
          names.length > 0
            ? `Saved specs: ${names.slice(0, 20).join(', ')}.`
            : 'There are no saved specs yet.'
        }`,
      );
    },
    async save(spec) {
      if (!['view', 'query', 'export'].includes(spec.kind)) {
        throw new DataSourceError(
          'misuse',
          `A saved spec's kind is view, query or export, got '${spec.kind}'.`,
        );
      }
      const values = {
        kind: spec.kind,
        description: spec.description ?? null,
        spec: JSON.stringify(spec.spec),
        updated_at: new Date(),
      };
      const row = await q
        .insertInto('saved_specs')
        .values({ name: spec.name, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSpec(row);
    },
    async delete(name) {
      const result = await q.deleteFrom('saved_specs').where('name', '=', name).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
