import type { EngineFeature } from '@toolrow/datasource/engine';

/**
 * What MySQL and MariaDB can do: foreign keys, staged writes (one InnoDB transaction, rows locked
 * FOR UPDATE), exports streamed from the server, a read stopped on cancel (KILL QUERY from a second
 * connection), the sample shop, a sort by any column. No readerRoles member: the SELECT-only
 * account is made by the user (`toolrow db setup-roles` prints its GRANTs) and named in DATABASE_URL.
 */
export const MYSQL_FEATURES: readonly EngineFeature[] = [
  'foreignKeys',
  'stagedWrites',
  'exports',
  'cancel',
  'seed',
  'anyColumnSort',
];
