import type { EngineFeature } from '@toolrow/datasource/engine';

/** What PostgreSQL (PGlite or a server) can do: the descriptor's list, which its connections carry too. */
export const POSTGRES_FEATURES: readonly EngineFeature[] = [
  'foreignKeys',
  'stagedWrites',
  'exports',
  'cancel',
  'seed',
  'largeShop',
  'readerRoles',
  'anyColumnSort',
];
