// What an engine package exports: one descriptor saying what it is, which URLs it claims, how it
// opens one and what it can do. Nothing outside an engine's package asks which engine it is on: it
// asks the descriptor (through the apps' registry, @toolrow/engines).
import type { EngineFeature } from '@toolrow/declarations';

export type { EngineFeature };

import type { DataSource } from './data-source.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** One way an engine connects (PostgreSQL: the embedded PGlite, or a server through pg). */
export interface EngineDriver {
  /** What `DataSource.driver` says, and what the state stores as a connection's engine. */
  readonly id: string;
  /** How a person names it ('PGlite', 'PostgreSQL'). */
  readonly label: string;
  /** Its data lives in Toolrow's data directory: the unnamed connection's sample is filled unasked, `db info` shows the directory. */
  readonly embedded?: boolean;
  /** Where a connection's password comes from when none is stored ('env/.pgpass'); absent: it has none. */
  readonly credentials?: string;
}

/** A URL as a user typed it, read by the engine that claims it. */
export interface ParsedConnectionUrl {
  /** The driver it connects through (one of the engine's `drivers`). */
  driver: string;
  /** The URL to store: absolute, without its password. */
  url: string;
  /** Where it points, without secrets ("PostgreSQL u@h:5432/db", "PGlite /path"). */
  description: string;
  /** The password the URL held, to keep apart from it (absent when none). */
  password?: string;
}

/**
 * What every engine's open takes. An engine reads the options it knows and ignores the rest, so
 * engine-specific ones (PostgreSQL's poolSize, memory, pgdata …) pass through the apps unread.
 */
/**
 * A small store an engine may keep what it learnt of a connection in (DynamoDB: each table's sampled
 * schema), shared by every process on Toolrow's state store. Values are the engine's own text.
 */
export interface EngineCache {
  get(key: string): Promise<{ value: string; savedAt: Date } | undefined>;
  set(key: string, value: string): Promise<void>;
}

export interface OpenEngineOptions {
  /** The connection's URL; absent: DATABASE_URL, else the engine's own default (the embedded sample). */
  url?: string;
  /** Where the URL came from, for messages ('DATABASE_URL', "the connection 'staging'"). */
  urlSource?: string;
  /** A named connection's password, kept apart from its stored URL. */
  password?: string;
  env?: Env;
  cwd?: string;
  /** Toolrow's data directory (absolute). */
  dataDir?: string;
  /** 'later': the caller sets the reader role up once interrupted commits are settled (engines that have one). */
  readerRoleSetup?: 'on-open' | 'later';
  /** Where the engine may keep what it learnt across processes (Toolrow's state store). */
  cache?: EngineCache;
  readonly [option: string]: unknown;
}

/** What `toolrow db setup-roles` prints for a connection: the read layer the user sets up, and how. */
export interface ReadLayerSetup {
  /** What to run or attach (SQL, IAM policies), or what was done: standard output. */
  text: string;
  /** What to do with it, for a person (standard error). */
  advice?: string;
}

export interface ReadLayerSetupOptions extends OpenEngineOptions {
  /** The command's flags, as given (PostgreSQL: role, grantee, no-harden, apply). */
  flags: Readonly<Record<string, unknown>>;
}

export interface EngineDescriptor {
  /** What `DataSource.engine` says ('postgres', 'dynamodb'). */
  readonly id: string;
  /** How a person names it ('PostgreSQL', 'DynamoDB'). */
  readonly label: string;
  readonly drivers: readonly EngineDriver[];
  /** The URL schemes it claims, lower case, without the colon. */
  readonly schemes: readonly string[];
  /** How its URLs are written, for the message that lists every engine's. */
  readonly urlForms: string;
  /** It opens with no URL at all (the embedded sample): the default engine. */
  readonly opensWithoutUrl?: boolean;
  /**
   * What it can do, the one list (EngineFeature in @toolrow/declarations): the tools served on
   * its connections, the catalog, MCP scopes and the apps' offers follow it. A feature with a
   * DataSource member (stagedWrites: `changes`, exports, seed, readerRoles) has it exactly when listed.
   */
  readonly features: readonly EngineFeature[];
  /**
   * The URL setting that bounds the items one read may evaluate, where the engine has one (a
   * DynamoDB read is billed per item): the user's setting, never the agent's.
   */
  readonly readBound?: { readonly setting: string; readonly default: number };
  /** Reads a URL it claims; relative paths resolve against `cwd`. Throws a DataSourceError naming `field`. */
  parseUrl(url: string, options: { cwd: string; field: string }): ParsedConnectionUrl;
  /** Opens a connection (loading its drivers only now). */
  open(options: OpenEngineOptions): Promise<DataSource>;
  /** The read-only layer a user sets up outside Toolrow (a reader role, an IAM policy), for `db setup-roles`. */
  readLayerSetup?(options: ReadLayerSetupOptions): Promise<ReadLayerSetup>;
}
