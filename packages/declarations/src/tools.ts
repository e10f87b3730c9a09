// The tool rows: one row per tool, and every other list in Toolrow is generated from them.
//
// Load-bearing rule: this file has zero imports of any form. It is bundled into the browser UI
// and the server alike, and one import would drag a tool implementation (and its Node-only
// dependencies) into the browser bundle, where the app dies at module load. Neither the type
// checker nor a unit test notices that; `npm run lint` reads this file as text and fails on it.
//
// Edit a row, then run `npm run gen`; `npm run gen:check` fails until you do.

/** Whether the model sees the tool from the first step or must find it with searchTools. */
export type ToolVisibility = 'inline' | 'discoverable';

/**
 * silent: a read that bothers nobody (schema cache, app state).
 * gated: acts on the world or costs something; it goes through the approval ladder.
 * loop: part of the agent loop itself, not a capability over the user's data.
 */
export type ToolTier = 'silent' | 'gated' | 'loop';

/**
 * How a gated tool acts. read: reads table data. propose: emits a chip the user clicks.
 * open: changes the UI now. stage: writes into the staging area. export: writes a file.
 */
export type ToolAccess = 'read' | 'propose' | 'open' | 'stage' | 'export';

/** MCP exposure; the levels nest: readonly ⊂ staged ⊂ full. excluded is never exposed. */
export type McpExposure = 'readonly' | 'staged' | 'full' | 'excluded';

/** What calling the tool can change. Tables themselves change only when the user commits staging. */
export type ToolWrites = 'none' | 'ui' | 'staging' | 'files';

/** The change a stage tool queues; update and delete overwrite or remove rows once committed. */
export type StagedOperation = 'insert' | 'update' | 'delete';

/**
 * The engines a connection can run on. postgres: PostgreSQL servers and the embedded PGlite (SQL).
 * dynamodb: Amazon DynamoDB (SQL read per table by key, Query or Scan; PartiQL; the item API).
 */
export type ToolEngine = 'postgres' | 'dynamodb';

export interface ToolRow {
  /** camelCase, unique; the name the model calls. */
  readonly name: string;
  /** What the model reads to choose the tool: when to use it and what it returns. */
  readonly description: string;
  /** Extra words searchTools matches on (synonyms a user might type). */
  readonly keywords: readonly string[];
  readonly visibility: ToolVisibility;
  readonly tier: ToolTier;
  /** Required on gated rows, absent elsewhere. */
  readonly access?: ToolAccess;
  /** Propose rows only: the immediate tool this one proposes. */
  readonly twin?: string;
  /** Stage rows only: the change the tool queues in the staging area. */
  readonly stages?: StagedOperation;
  readonly mcp: McpExposure;
  readonly writes: ToolWrites;
  /**
   * The engines that serve the tool; leave it out when every engine does. On a connection whose
   * engine is not listed the tool is in no set (inline, search, MCP) and a call is refused.
   */
  readonly engines?: readonly ToolEngine[];
}

export const TOOL_ROWS = [
  // ── The loop ──────────────────────────────────────────────────────────────────────────────
  {
    name: 'searchTools',
    description:
      'Find tools that are not in your current tool list. Give a few words about what you need (for example "export csv" or "foreign keys"). Returns the best matching tools, which you can call from the next step on. At most 3 searches per turn.',
    keywords: ['search', 'find', 'discover', 'tool', 'capability', 'more tools'],
    visibility: 'inline',
    tier: 'loop',
    mcp: 'excluded',
    writes: 'none',
  },

  // ── Silent, inline: the schema cache and app state ───────────────────────────────────────
  {
    name: 'listConnections',
    description:
      'List the database connections the user has configured, with which one is active. Use it when the user asks which databases are available.',
    keywords: ['connection', 'database', 'server', 'datasource'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listTables',
    description:
      'List the tables of the active connection with schema, estimated row count and a one-line summary of columns. Start here when you do not know the table names.',
    keywords: ['tables', 'schema', 'relations', 'what data'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'describeTable',
    description:
      'Describe one table: its columns with types and nullability, primary key, indexes and foreign keys. Call it before writing SQL or a filter for a table.',
    keywords: ['columns', 'structure', 'types', 'primary key', 'definition'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'findColumns',
    description:
      'Search every table for columns whose name contains the given text (for example "email" or "created"). Use it when you know the kind of data but not where it lives.',
    keywords: ['column', 'field', 'where is', 'lookup'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'sampleValues',
    description:
      'Show typical values of one column, from the schema cache (most common values and bounds). Use it to spell a filter value right, such as a status name.',
    keywords: ['values', 'distinct', 'examples', 'enum', 'categories'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getTableStats',
    description: 'Get the estimated row count and on-disk size of a table, without scanning it.',
    keywords: ['size', 'row count', 'estimate', 'how big', 'statistics'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'validateQuery',
    description:
      'Check a SELECT without running it: it must be one read-only statement over known tables and columns. Returns ok or the exact problem. Use it before runQuery when unsure.',
    keywords: ['check', 'sql', 'syntax', 'lint', 'parse'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getActiveView',
    description:
      'Get what the user is looking at: the table of the focused tab with its filter and sort. Use it when the user says "this table" or "these rows".',
    keywords: ['current', 'focused', 'view', 'this table', 'screen'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getSelection',
    description:
      'Get the rows the user has selected in the focused table, with their primary keys. Use it when the user says "these", "selected" or "the highlighted rows".',
    keywords: ['selected', 'highlighted', 'these rows', 'checked'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listOpenTabs',
    description: 'List the tabs open in the app (tables, SQL workbenches, records), marking the focused one.',
    keywords: ['tabs', 'open', 'windows', 'workspace'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'excluded',
    writes: 'none',
  },
  {
    name: 'readAttachment',
    description:
      'Read a file the user attached to the chat (CSV, JSON or text), returning its first rows or lines. Use it whenever the user mentions an attached or uploaded file.',
    keywords: ['attachment', 'attached', 'file', 'upload', 'csv', 'document'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'excluded',
    writes: 'none',
  },
  {
    name: 'listQueryHistory',
    description:
      'List recent queries run in this profile, newest first, with time and row count. Use it when the user refers to an earlier query.',
    keywords: ['history', 'recent', 'previous', 'earlier', 'last query'],
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Silent, discoverable: things users ask for by name ───────────────────────────────────
  {
    name: 'explainQuery',
    description:
      'Show how a SELECT would run, without running it: the PostgreSQL plan (EXPLAIN without ANALYZE), or on DynamoDB how each table is read (GetItem, Query on a key or index, or a Scan of the whole table). Use it when the user asks why a query is slow or how it executes.',
    keywords: ['explain', 'plan', 'slow', 'performance', 'optimize', 'execution'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getIndexStats',
    description:
      'List the indexes of a table with their columns, size and how often each has been scanned. Use it for questions about indexes or unused indexes.',
    keywords: ['index', 'indexes', 'indices', 'scans', 'unused', 'performance'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'describeRelations',
    description:
      'List the foreign keys into and out of a table, showing how tables join. Use it when the user asks how tables relate or what references what.',
    keywords: [
      'foreign key',
      'relation',
      'relationship',
      'references',
      'connected',
      'linked',
      'join',
      'schema graph',
    ],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
    engines: ['postgres'],
  },
  {
    name: 'listSavedSpecs',
    description: 'List the saved specs (named queries and views the user saved) with their names and tables.',
    keywords: ['saved', 'spec', 'specs', 'bookmark', 'named query', 'saved view'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getSavedSpec',
    description: 'Get one saved spec by name: its SQL or its table, filter and sort.',
    keywords: ['saved', 'spec', 'bookmark', 'named query', 'saved view'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listStagedChanges',
    description:
      'List the changes waiting in the staging area (inserts, updates, deletes not yet committed), with table and row keys. Only the user can commit or discard them.',
    keywords: ['staged', 'staging', 'pending', 'changes', 'uncommitted', 'review'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'diffStagedChanges',
    description: 'Show staged changes as a diff: each row before and after, column by column.',
    keywords: ['diff', 'staged', 'staging', 'before after', 'compare', 'changes'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getExportStatus',
    description:
      'Get the progress of an export: rows written of the estimate, state, and the file path when done.',
    keywords: ['export', 'progress', 'status', 'download', 'file'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listAuditLog',
    description:
      'List recent entries of the audit log: every gated tool call with its decision (asked, approved, denied, auto), who decided and when.',
    keywords: ['audit', 'log', 'approvals', 'approved', 'denied', 'who', 'history of actions', 'permissions'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Gated reads: they hit the database ───────────────────────────────────────────────────
  {
    name: 'runQuery',
    description:
      'Run one read-only SQL SELECT (joins, GROUP BY, aggregates; on DynamoDB too) and get the rows back, capped. Writes are refused: use the stage tools to change data.',
    keywords: [
      'sql',
      'partiql',
      'select',
      'query',
      'aggregate',
      'group by',
      'join',
      'sum',
      'average',
      'report',
    ],
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getRow',
    description: 'Fetch one row of a table by its primary key, with every column.',
    keywords: ['row', 'record', 'by id', 'lookup', 'primary key'],
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'countRows',
    description:
      'Count the rows of a table that match a structured filter (column, operator, value). Use it for "how many" questions.',
    keywords: ['count', 'how many', 'number of', 'total'],
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Gated UI actions and their propose twins ─────────────────────────────────────────────
  {
    name: 'openTable',
    description:
      'Open a table in a new tab now, optionally with a filter and sort. Prefer proposeOpenTable unless the user asked you to open it.',
    keywords: ['open', 'show', 'display', 'view table', 'browse'],
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenTable',
    description:
      'Offer the user a button that opens a table (optionally filtered and sorted). Nothing happens until the user clicks it. The safe way to show a table.',
    keywords: ['suggest', 'offer', 'open', 'show', 'view table', 'button'],
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openTable',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'openWorkbench',
    description:
      'Open the SQL workbench in a new tab now, prefilled with a query for the user to edit and run.',
    keywords: ['sql editor', 'workbench', 'console', 'write sql', 'edit query'],
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenWorkbench',
    description:
      'Offer the user a button that opens the SQL workbench prefilled with a query. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'sql editor', 'workbench', 'button'],
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openWorkbench',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'setFilter',
    description:
      'Set the filter and sort of the focused table view now (for example orders from last month, newest first). Filters are structured: column, operator, value.',
    keywords: ['filter', 'where', 'only', 'sort', 'sort by', 'narrow', 'last month'],
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeSetFilter',
    description:
      'Offer the user a button that applies a filter and sort to a table view. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'filter', 'sort', 'button'],
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'setFilter',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'openRow',
    description: 'Open the record detail of one row (by primary key) in a new tab now.',
    keywords: ['record', 'detail', 'open row', 'show row'],
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenRow',
    description:
      'Offer the user a button that opens the record detail of one row. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'record', 'detail', 'button'],
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openRow',
    mcp: 'staged',
    writes: 'ui',
  },

  // ── Exports: named by the user, so discoverable ──────────────────────────────────────────
  {
    name: 'startExport',
    description:
      'Export a table (optionally filtered) or a SELECT to a CSV, JSON or NDJSON file in the exports folder. Runs in the background; follow it with getExportStatus.',
    keywords: ['export', 'csv', 'json', 'ndjson', 'download', 'save as', 'write to file', 'file', 'dump'],
    visibility: 'discoverable',
    tier: 'gated',
    access: 'export',
    mcp: 'full',
    writes: 'files',
  },
  {
    name: 'proposeExport',
    description:
      'Offer the user a button that starts an export to CSV, JSON or NDJSON. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'export', 'csv', 'download', 'button'],
    visibility: 'discoverable',
    tier: 'gated',
    access: 'propose',
    twin: 'startExport',
    mcp: 'staged',
    writes: 'ui',
  },

  // ── Staging: every write lands here; only the user commits ───────────────────────────────
  {
    name: 'stageInsertRows',
    description:
      'Stage new rows for a table. Nothing is written to the table: the rows wait in the staging area until the user reviews and commits them.',
    keywords: ['insert', 'add', 'create', 'new row', 'append'],
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'insert',
    mcp: 'staged',
    writes: 'staging',
  },
  {
    name: 'stageUpdateRows',
    description:
      'Stage changes to existing rows, identified by primary key. Nothing is written to the table until the user reviews and commits.',
    keywords: ['update', 'edit', 'change', 'set', 'modify', 'fix'],
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'update',
    mcp: 'staged',
    writes: 'staging',
  },
  {
    name: 'stageDeleteRows',
    description:
      'Stage the deletion of rows, identified by primary key. Nothing is deleted until the user reviews and commits.',
    keywords: ['delete', 'remove', 'drop rows', 'erase'],
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'delete',
    mcp: 'staged',
    writes: 'staging',
  },
] as const satisfies readonly ToolRow[];
