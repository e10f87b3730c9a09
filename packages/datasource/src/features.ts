// The DataSource members a feature brings, and how the apps ask for one: a connection whose engine
// lacks it is refused in words that say so, before anything changes.
import type { EngineFeature } from '@toolrow/declarations';
import type { DataSource } from './data-source.ts';
import { DataSourceError } from './errors.ts';

/** A DataSource member only some engines have, and the feature that says it is there. */
export const FEATURE_MEMBERS = {
  changes: 'stagedWrites',
  createExportEngine: 'exports',
  seed: 'seed',
  setUpReaderRole: 'readerRoles',
} as const satisfies Partial<Record<keyof DataSource, EngineFeature>>;

export type FeatureMember = keyof typeof FEATURE_MEMBERS;

/** A DataSource whose engine has every optional member (PostgreSQL's, DynamoDB's): for their own code and tests. */
export type DataSourceWith<K extends FeatureMember = FeatureMember> = DataSource &
  Required<Pick<DataSource, K>>;

const WHAT: Record<FeatureMember, string> = {
  changes: 'stage or commit changes',
  createExportEngine: 'export to files',
  seed: 'make the sample shop',
  setUpReaderRole: 'set up a reader role',
};

/** Whether the connection's engine has the member's feature. */
export function hasFeature(source: DataSource, member: FeatureMember): boolean {
  return source[member] !== undefined && source.features.includes(FEATURE_MEMBERS[member]);
}

/** The member, or a DataSourceError ('unsupported') naming the connection and the feature it lacks. */
export function featureOf<K extends FeatureMember>(
  source: DataSource,
  member: K,
): NonNullable<DataSource[K]> {
  const value = source[member];
  if (value === undefined || !source.features.includes(FEATURE_MEMBERS[member])) {
    throw new DataSourceError(
      'unsupported',
      `${source.description} cannot ${WHAT[member]}: its engine (${source.engine}) does not have '${FEATURE_MEMBERS[member]}'. Nothing was changed.`,
    );
  }
  return value as NonNullable<DataSource[K]>;
}
