import type { EngineFeature } from '@toolrow/datasource/engine';

/**
 * What SQLite can do: foreign keys, staged writes (one IMMEDIATE transaction), exports, a read
 * stopped at its limit (its read worker ends), the sample shop. No reader role: SQLite has no logins;
 * its read-only layers are the connection's own (see readLayers).
 */
export const SQLITE_FEATURES: readonly EngineFeature[] = [
  'foreignKeys',
  'stagedWrites',
  'exports',
  'cancel',
  'seed',
  'anyColumnSort',
];
