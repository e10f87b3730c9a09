import type { DataSource, ExportEngine } from '@toolrow/datasource';
import type { AppState } from './app-state.ts';
import type { Staging } from './staging.ts';
import type { StagingOptions } from './staging-impl.ts';
import type { StateDb } from './store/state-db.ts';

export interface OpenStateOptions {
  /** The user's data the staging area commits to and exports read from. */
  source: DataSource;
  /** Read TOOLROW_STATE_URL, TOOLROW_DATA_DIR, TOOLROW_EXPORTS_DIR (and DATABASE_URL, to refuse sharing it) from here. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative directories resolve against this (default: process.cwd()). */
  cwd?: string;
  /** A postgres:// URL for a team's state server; wins over TOOLROW_STATE_URL. */
  url?: string;
  /** The Toolrow data directory: the embedded store is <dataDir>/state.db. Wins over TOOLROW_DATA_DIR. */
  dataDir?: string;
  /** An embedded store in memory (tests, eval). Ignored when a URL is given. */
  memory?: boolean;
  /** Embedded: how long a write waits for another process's write before failing (default 5 s). */
  busyTimeoutMs?: number;
  /** Where one-time messages go (moving an earlier release's state); default: stderr. */
  onNotice?: (message: string) => void;
  /** Where exports go (default: TOOLROW_EXPORTS_DIR, else <dataDir>/exports). */
  exportsDir?: string;
  /** Wall-clock limit of one export, in ms (default: TOOLROW_EXPORT_TIME_LIMIT minutes, else 30 min). */
  exportTimeLimitMs?: number;
  /** Run the migrations on open (default true). */
  migrate?: boolean;
  /** The name the user's connection is listed under by listConnections (default 'default'). */
  connectionName?: string;
  /** Test hooks of the staging area (see StagingOptions). */
  staging?: StagingOptions;
  /** Runs after the store closes (the test helper removes its database here). */
  onClose?: () => Promise<void>;
}

/**
 * Toolrow's own state, in a store of its own — embedded SQLite in <dataDir>/state.db, or the
 * PostgreSQL server TOOLROW_STATE_URL names — and never in the user's database: profiles and grants, UI state,
 * saved specs, query history, the audit log, attachments, conversations, MCP tokens, export jobs
 * and the staging area.
 */
export interface ToolrowState extends AppState {
  /** The store's own connection (typed queries over either dialect). */
  readonly db: StateDb;
  /** Staged changes: recorded here, applied to the user's data only when the user commits. */
  readonly staging: Staging;
  /** Exports of the user's data to files; their jobs are recorded here. */
  readonly exports: ExportEngine;
  /** Where the state lives, without secrets ("SQLite at …/state.db", "PostgreSQL u@h:5432/state"). */
  readonly description: string;
  /** The Toolrow data directory (absolute). */
  readonly dataDir: string;
  /** Waits for background exports, then closes the store (not the user's data). */
  close(): Promise<void>;
}

/** The app state alone (no staging area, no exports): see openAppState. */
export interface AppStateHandle extends AppState {
  readonly db: StateDb;
  readonly description: string;
  readonly dataDir: string;
  /** Writes pending last-use stamps, then closes the store. */
  close(): Promise<void>;
}
