// The request corpus: what users type, as they type it, and what a correct turn does with it.
// Tests name tools; the lists of tools derived from the rows (stage tools, …) come from the catalog.
import {
  accessOf,
  CATALOG_ROWS,
  type CatalogRow,
  isToolName,
  TOOL_NAMES,
  type ToolName,
} from '@toolrow/catalog';

/** One step of a correct turn: a tool, or any one of several tools that are all right. */
export type Step = ToolName | readonly ToolName[];

/** What the app shows when the user types the request. */
export interface RequestContext {
  /** The focused tab is this table (optionally filtered), in the sample shop. */
  tab?: { table: string; filter?: { column: string; op: string; value: unknown } };
  /** Primary keys of the rows selected in the focused table tab. */
  selection?: readonly number[];
  /** The focused tab is a SQL workbench holding this query. */
  workbench?: string;
}

export interface EvalRequest {
  /** Stable id (`--only` matches it, compare joins on it). */
  id: string;
  /** The request as a user types it: short, vague, misspelled. */
  text: string;
  /** The calls a correct turn makes, in order (more calls in between are fine). */
  expect: readonly Step[];
  /** Calls that make the turn wrong: the immediate twin when a chip is right, a write when a read was asked. */
  mustNot?: readonly ToolName[];
  /** Whether the wording names the capability ("export as csv" does; "last month's orders" never says setFilter). */
  namesCapability: boolean;
  context?: RequestContext;
  /**
   * The answer comes from the call itself (a report the user reads): an expected call that fails
   * fails the turn. The scripted model's input for it is SQL every engine must run (DynamoDB too).
   */
  mustRun?: true;
  /**
   * Which sample the request runs on: the sample shop (default), or the large one, the same shop
   * beside 1,000 more tables in five schemas and one table of 1,000 columns (see LARGE_SHOP).
   */
  shop?: 'large';
}

/** The large sample: where a model meets a schema that does not fit its window (the contract's). */
export { LARGE_SHOP } from '@toolrow/datasource';

/** The tools that write into the staging area: a read-only request must call none of them. */
export const STAGE_TOOLS: readonly ToolName[] = TOOL_NAMES.filter((name) => accessOf(name) === 'stage');

const orders = { tab: { table: 'orders' } } as const;
const customers = { tab: { table: 'customers' } } as const;
const products = { tab: { table: 'products' } } as const;
const read = STAGE_TOOLS;

/** The hand-written requests: every row, the propose pairs, multi-step turns, searches, context. */
const WRITTEN: readonly EvalRequest[] = [
  // ── searchTools: the user asks about the agent's own abilities ─────────────────────────────
  {
    id: 'search-what-else',
    text: 'what else can you do? any tools for db maintenance?',
    expect: ['searchTools'],
    namesCapability: true,
  },
  {
    id: 'search-find-tool',
    text: 'is there a tool to see who approved stuff',
    expect: ['searchTools', 'listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },

  // ── listConnections ──────────────────────────────────────────────────────────────────────
  {
    id: 'conn-which-db',
    text: 'which database am i connected to',
    expect: ['listConnections'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'conn-list',
    text: 'list my connections',
    expect: ['listConnections'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'conn-typo',
    text: 'wat databses do i have',
    expect: ['listConnections'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'conn-prod',
    text: 'is this prod or some local thing?',
    expect: ['listConnections'],
    namesCapability: false,
    mustNot: read,
  },

  // ── listTables ───────────────────────────────────────────────────────────────────────────
  {
    id: 'tables-what',
    text: 'what tables are there',
    expect: ['listTables'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'tables-typo',
    text: 'wich tables r in here',
    expect: ['listTables'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'tables-vague',
    text: "what's in this database",
    expect: ['listTables'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'tables-new',
    text: "i'm new here, what data do we have?",
    expect: ['listTables'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'tables-biggest',
    text: 'which table has the most rows',
    expect: [['listTables', 'getTableStats', 'runQuery']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'tables-inventory',
    text: 'do we have anything about inventory?',
    expect: [['listTables', 'findColumns']],
    namesCapability: false,
    mustNot: read,
  },

  // ── describeTable ────────────────────────────────────────────────────────────────────────
  {
    id: 'describe-columns',
    text: 'what columns does orders have',
    expect: ['describeTable'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'describe-this',
    text: 'describe this table',
    expect: [['describeTable', 'getActiveView']],
    namesCapability: true,
    context: customers,
    mustNot: read,
  },
  {
    id: 'describe-pk',
    text: "what's the primary key on order_items",
    expect: ['describeTable'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'describe-types',
    text: 'is total a number or text?',
    expect: ['describeTable'],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'describe-nullable',
    text: 'can shipped_at be empty',
    expect: ['describeTable'],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'describe-typo',
    text: 'structre of products pls',
    expect: ['describeTable'],
    namesCapability: true,
    mustNot: read,
  },

  // ── findColumns ──────────────────────────────────────────────────────────────────────────
  {
    id: 'find-email',
    text: 'where do we keep emails',
    expect: ['findColumns'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'find-created',
    text: 'which tables have a created date column',
    expect: ['findColumns'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'find-price',
    text: 'is there a price field somewhere',
    expect: ['findColumns'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'find-country',
    text: 'country column - which table?',
    expect: ['findColumns'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'find-typo',
    text: 'wheres the sku colum',
    expect: ['findColumns'],
    namesCapability: true,
    mustNot: read,
  },

  // ── sampleValues ─────────────────────────────────────────────────────────────────────────
  {
    id: 'sample-status',
    text: 'what statuses can an order have',
    expect: [['sampleValues', 'describeTable', 'runQuery']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'sample-tiers',
    text: 'loyalty tiers, what are the options?',
    expect: [['sampleValues', 'describeTable', 'runQuery']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'sample-categories',
    text: 'show me some example categories',
    expect: [['sampleValues', 'runQuery']],
    namesCapability: true,
    context: products,
    mustNot: read,
  },
  {
    id: 'sample-spelling',
    text: 'is it "canceled" or "cancelled" in status?',
    expect: ['sampleValues'],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'sample-currency',
    text: 'which currencies show up',
    expect: [['sampleValues', 'runQuery']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },

  // ── getTableStats ────────────────────────────────────────────────────────────────────────
  {
    id: 'stats-size',
    text: 'how big is the orders table on disk',
    expect: ['getTableStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'stats-rough',
    text: 'roughly how many rows in order_items? estimate is fine',
    expect: ['getTableStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'stats-mb',
    text: 'how many MB is customers',
    expect: ['getTableStats'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'stats-this',
    text: 'size of this one?',
    expect: ['getTableStats'],
    namesCapability: true,
    context: products,
    mustNot: read,
  },

  // ── validateQuery ────────────────────────────────────────────────────────────────────────
  {
    id: 'validate-check',
    text: 'check this sql without running it: select id, totl from orders',
    expect: ['validateQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'validate-workbench',
    text: 'is my query ok?',
    expect: [['validateQuery', 'explainQuery']],
    namesCapability: false,
    context: {
      workbench:
        'select c.name, sum(o.total) from customers c join orders o on o.customer_id = c.id group by 1',
    },
    mustNot: read,
  },
  {
    id: 'validate-syntax',
    text: 'syntax check: SELECT * FORM products',
    expect: ['validateQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'validate-dont-run',
    text: "don't run it, just tell me if this works: select count(*) from order_items where qty > 2",
    expect: ['validateQuery'],
    mustNot: ['runQuery', ...read],
    namesCapability: false,
  },

  // ── getActiveView ────────────────────────────────────────────────────────────────────────
  {
    id: 'view-what',
    text: 'what am i looking at',
    expect: ['getActiveView'],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'view-filter',
    text: 'what filter is on right now',
    expect: ['getActiveView'],
    namesCapability: true,
    context: { tab: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'paid' } } },
    mustNot: read,
  },
  {
    id: 'view-summary',
    text: 'summarize this table for me',
    expect: ['getActiveView'],
    namesCapability: false,
    context: customers,
    mustNot: read,
  },
  {
    id: 'view-sorted',
    text: 'how is this sorted?',
    expect: ['getActiveView'],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },

  // ── getSelection ─────────────────────────────────────────────────────────────────────────
  {
    id: 'selection-these',
    text: 'what do these rows have in common',
    expect: ['getSelection'],
    namesCapability: true,
    context: { ...orders, selection: [3, 7, 12] },
    mustNot: read,
  },
  {
    id: 'selection-total',
    text: 'sum the totals of the selected ones',
    expect: ['getSelection'],
    namesCapability: true,
    context: { ...orders, selection: [1, 2, 5] },
    mustNot: read,
  },
  {
    id: 'selection-highlighted',
    text: 'the highlighted customers, where are they from',
    expect: ['getSelection'],
    namesCapability: true,
    context: { ...customers, selection: [4, 9] },
    mustNot: read,
  },
  {
    id: 'selection-ticked',
    text: 'the 2 i ticked — same city?',
    expect: ['getSelection'],
    namesCapability: false,
    context: { ...customers, selection: [10, 11] },
    mustNot: read,
  },

  // ── listOpenTabs ─────────────────────────────────────────────────────────────────────────
  {
    id: 'tabs-which',
    text: 'which tabs do i have open',
    expect: ['listOpenTabs'],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'tabs-mess',
    text: 'i lost track, what have i got open',
    expect: ['listOpenTabs'],
    namesCapability: true,
    context: customers,
    mustNot: read,
  },
  {
    id: 'tabs-workspace',
    text: 'whats in my workspace',
    expect: [['listOpenTabs', 'getActiveView']],
    namesCapability: true,
    context: products,
    mustNot: read,
  },

  // ── readAttachment ───────────────────────────────────────────────────────────────────────
  {
    id: 'attach-read',
    text: "what's in the file i attached",
    expect: ['readAttachment'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'attach-csv',
    text: 'look at new_customers.csv and tell me how many rows',
    expect: ['readAttachment'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'attach-upload',
    text: 'i uploaded a list, are those people already customers?',
    expect: ['readAttachment'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'attach-typo',
    text: 'can u read my atachment',
    expect: ['readAttachment'],
    namesCapability: true,
    mustNot: read,
  },

  // ── listQueryHistory ─────────────────────────────────────────────────────────────────────
  {
    id: 'history-last',
    text: 'what was the last query i ran',
    expect: ['listQueryHistory'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'history-earlier',
    text: 'run that revenue query from earlier again',
    expect: ['listQueryHistory', 'runQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'history-recent',
    text: 'show my recent queries',
    expect: ['listQueryHistory'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'history-yesterday',
    text: 'the thing i looked up before, how many rows did it return',
    expect: ['listQueryHistory'],
    namesCapability: false,
    mustNot: read,
  },

  // ── explainQuery (discoverable) ──────────────────────────────────────────────────────────
  {
    id: 'explain-slow',
    text: 'why is this query slow',
    expect: ['explainQuery'],
    namesCapability: true,
    context: { workbench: "select * from orders where note like '%gift%'" },
    mustNot: read,
  },
  {
    id: 'explain-plan',
    text: 'show me the query plan for select * from orders where customer_id = 5',
    expect: ['explainQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'explain-typo',
    text: 'explian this select for me, is it using an index',
    expect: ['explainQuery'],
    namesCapability: true,
    context: { workbench: 'select * from customers where email = $1' },
    mustNot: read,
  },
  {
    id: 'explain-forever',
    text: 'my join takes forever, what is postgres doing',
    expect: ['explainQuery'],
    namesCapability: false,
    context: { workbench: 'select * from orders o join order_items i on i.order_id = o.id' },
    mustNot: read,
  },
  {
    id: 'explain-optimize',
    text: 'how can i optimize this',
    expect: ['explainQuery'],
    namesCapability: true,
    context: { workbench: 'select customer_id, sum(total) from orders group by customer_id' },
    mustNot: read,
  },
  {
    id: 'explain-execution',
    text: 'how does postgres execute a count over order_items',
    expect: ['explainQuery'],
    namesCapability: true,
    mustNot: read,
  },

  // ── getIndexStats (discoverable) ─────────────────────────────────────────────────────────
  {
    id: 'index-unused',
    text: 'any unused indexes?',
    expect: ['getIndexStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'index-orders',
    text: 'what indexes are on orders',
    expect: [['getIndexStats', 'describeTable']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'index-sizes',
    text: 'index sizes for products',
    expect: ['getIndexStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'index-typo',
    text: 'is the idx on category ever used',
    expect: ['getIndexStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'index-scans',
    text: 'how often does postgres scan the customers indices',
    expect: ['getIndexStats'],
    namesCapability: true,
    mustNot: read,
  },

  // ── describeRelations (discoverable) ─────────────────────────────────────────────────────
  {
    id: 'rel-fk',
    text: 'foreign keys on order_items?',
    expect: [['describeRelations', 'describeTable']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'rel-relate',
    text: 'how do these tables relate',
    expect: ['describeRelations'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'rel-references',
    text: 'what references customers',
    expect: ['describeRelations'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'rel-join',
    text: 'how do i join orders to products',
    expect: ['describeRelations'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'rel-linked',
    text: 'what is this table linked to',
    expect: ['describeRelations'],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'rel-typo',
    text: 'relashionships between the tables pls',
    expect: ['describeRelations'],
    namesCapability: true,
    mustNot: read,
  },

  // ── listSavedSpecs / getSavedSpec (discoverable) ─────────────────────────────────────────
  {
    id: 'specs-mine',
    text: 'my saved specs',
    expect: ['listSavedSpecs'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'specs-bookmarks',
    text: 'what views did i save',
    expect: ['listSavedSpecs'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'specs-named',
    text: 'list the named queries',
    expect: ['listSavedSpecs'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'specs-typo',
    text: 'do i have any saved veiws',
    expect: ['listSavedSpecs'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'spec-get',
    text: "what's in my saved spec 'big spenders'",
    expect: ['getSavedSpec'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'spec-sql',
    text: 'show me the sql of the saved query monthly revenue',
    expect: ['getSavedSpec'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'spec-open',
    text: 'open my saved view big spenders',
    expect: ['getSavedSpec', ['openTable', 'proposeOpenTable', 'openWorkbench', 'proposeOpenWorkbench']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'spec-bookmark',
    text: 'the bookmark called monthly revenue - what does it filter on',
    expect: ['getSavedSpec'],
    namesCapability: true,
    mustNot: read,
  },

  // ── listStagedChanges / diffStagedChanges (discoverable) ─────────────────────────────────
  {
    id: 'staged-what',
    text: 'what changes are staged',
    expect: ['listStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'staged-pending',
    text: 'anything pending that i still need to commit?',
    expect: ['listStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'staged-uncommitted',
    text: 'list uncommitted edits',
    expect: [['listStagedChanges', 'diffStagedChanges']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'staged-review',
    text: 'let me review what you queued up',
    expect: [['listStagedChanges', 'diffStagedChanges']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'staged-typo',
    text: 'wats in staging',
    expect: ['listStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'diff-staged',
    text: 'diff of the staged changes',
    expect: ['diffStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'diff-before-after',
    text: 'before and after of the pending edits',
    expect: ['diffStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'diff-compare',
    text: 'compare the staged rows with what is there now',
    expect: ['diffStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'diff-columns',
    text: 'which columns did the staged update change',
    expect: ['diffStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },

  // ── getExportStatus (discoverable) ───────────────────────────────────────────────────────
  {
    id: 'export-done',
    text: 'is my export done',
    expect: ['getExportStatus'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-progress',
    text: 'export progress?',
    expect: ['getExportStatus'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-where',
    text: 'where did the export file end up',
    expect: ['getExportStatus'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-status-typo',
    text: 'staus of the download',
    expect: ['getExportStatus'],
    namesCapability: true,
    mustNot: read,
  },

  // ── listAuditLog (discoverable) ──────────────────────────────────────────────────────────
  { id: 'audit-log', text: 'audit log', expect: ['listAuditLog'], namesCapability: true, mustNot: read },
  {
    id: 'audit-who',
    text: 'who approved that',
    expect: ['listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'audit-denied',
    text: 'what did i deny today',
    expect: ['listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'audit-actions',
    text: 'show me the history of actions you took',
    expect: ['listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'audit-permissions',
    text: 'what permissions have been used',
    expect: ['listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },

  // ── runQuery ─────────────────────────────────────────────────────────────────────────────
  {
    id: 'query-revenue',
    text: 'revenue by month this year',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'query-top-customers',
    text: 'top 10 customers by spend',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'query-avg',
    text: 'average order value per country',
    expect: ['runQuery'],
    namesCapability: true,
    mustNot: read,
  },
  // Reports that need a JOIN and a GROUP BY on every engine, DynamoDB included.
  {
    id: 'query-join-country',
    text: 'revenue by customer country, biggest first',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'query-join-top-named',
    text: 'who are our 5 best customers? names and how many orders each',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'query-join-category-units',
    text: 'units sold per product category, not counting cancelled orders',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'query-sql',
    text: 'run select status, count(*) from orders group by status',
    expect: ['runQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'query-best-sellers',
    text: 'best selling products last 30 days',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'query-typo',
    text: 'whats the avrage basket size',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'query-repeat',
    text: 'customers who ordered more than 5 times',
    expect: ['runQuery'],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'query-this',
    text: 'total of everything in this view',
    expect: [['runQuery', 'getActiveView']],
    namesCapability: false,
    context: { tab: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'refunded' } } },
    mustNot: read,
  },
  {
    id: 'query-report',
    text: 'give me a quick sales report by category',
    expect: ['runQuery'],
    namesCapability: true,
    mustNot: read,
  },

  // ── getRow ───────────────────────────────────────────────────────────────────────────────
  {
    id: 'row-order',
    text: 'show me order 42',
    expect: [['getRow', 'openRow', 'proposeOpenRow', 'runQuery']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'row-customer-email',
    text: "what's customer 7's email",
    expect: [['getRow', 'runQuery']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'row-product',
    text: 'details for product id 3',
    expect: [['getRow', 'openRow', 'proposeOpenRow', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'row-typo',
    text: 'pull up cusotmer #15 record',
    expect: [['getRow', 'openRow', 'proposeOpenRow']],
    namesCapability: true,
    mustNot: read,
  },

  // ── countRows ────────────────────────────────────────────────────────────────────────────
  {
    id: 'count-pending',
    text: 'how many orders are pending',
    expect: [['countRows', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'count-gold',
    text: 'number of gold customers',
    expect: [['countRows', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'count-typo',
    text: 'how mnay refunded orders',
    expect: [['countRows', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'count-stock',
    text: 'products out of stock - how many?',
    expect: [['countRows', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'count-this',
    text: 'how many rows match this filter',
    expect: [['countRows', 'getActiveView']],
    namesCapability: true,
    context: { tab: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'shipped' } } },
    mustNot: read,
  },
  {
    id: 'count-de',
    text: 'total customers in germany',
    expect: [['countRows', 'runQuery']],
    namesCapability: true,
    mustNot: read,
  },

  // ── openTable / proposeOpenTable ─────────────────────────────────────────────────────────
  {
    id: 'open-orders',
    text: 'open the orders table',
    expect: [['openTable', 'proposeOpenTable']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'open-now',
    text: 'open products now pls',
    expect: ['openTable'],
    namesCapability: true,
    mustNot: ['proposeOpenTable', ...read],
  },
  {
    id: 'open-typo',
    text: 'opn custmers',
    expect: [['openTable', 'proposeOpenTable']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'propose-open-refunds',
    text: 'where would i look at refunds?',
    expect: ['proposeOpenTable'],
    namesCapability: false,
    mustNot: ['openTable', ...read],
  },
  {
    id: 'propose-open-suggest',
    text: 'suggest a table i should look at for stock levels',
    expect: ['proposeOpenTable'],
    namesCapability: false,
    mustNot: ['openTable', ...read],
  },
  {
    id: 'propose-open-button',
    text: 'give me a button to open order_items',
    expect: ['proposeOpenTable'],
    namesCapability: true,
    mustNot: ['openTable', ...read],
  },
  {
    id: 'propose-open-maybe',
    text: 'maybe show me the big orders sometime, no rush',
    expect: [['proposeOpenTable', 'proposeSetFilter']],
    namesCapability: false,
    mustNot: ['openTable', 'setFilter', ...read],
  },

  // ── openWorkbench / proposeOpenWorkbench ─────────────────────────────────────────────────
  {
    id: 'workbench-open',
    text: 'open the sql editor',
    expect: [['openWorkbench', 'proposeOpenWorkbench']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'workbench-prefill',
    text: 'put a query for monthly revenue in the workbench so i can tweak it',
    expect: ['openWorkbench'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'workbench-console',
    text: 'open a console with select * from products',
    expect: [['openWorkbench', 'proposeOpenWorkbench']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'propose-workbench-offer',
    text: 'write me a query for churned customers, i want to edit it myself later',
    expect: ['proposeOpenWorkbench'],
    namesCapability: false,
    mustNot: ['openWorkbench', ...read],
  },
  {
    id: 'propose-workbench-button',
    text: 'offer me a button for the sql editor with that query',
    expect: ['proposeOpenWorkbench'],
    namesCapability: true,
    mustNot: ['openWorkbench', ...read],
  },
  {
    id: 'propose-workbench-draft',
    text: 'draft the sql for repeat buyers but dont open anything',
    expect: ['proposeOpenWorkbench'],
    namesCapability: false,
    mustNot: ['openWorkbench', ...read],
  },

  // ── setFilter / proposeSetFilter ─────────────────────────────────────────────────────────
  {
    id: 'filter-last-month',
    text: "show me last month's orders",
    expect: [['setFilter', 'proposeSetFilter', 'openTable', 'proposeOpenTable']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'filter-only',
    text: 'only the refunded ones',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'filter-sort',
    text: 'sort by total, biggest first',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'filter-typo',
    text: 'filtr to germany',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: true,
    context: customers,
    mustNot: read,
  },
  {
    id: 'filter-now',
    text: 'apply a filter status = shipped right now',
    expect: ['setFilter'],
    namesCapability: true,
    context: orders,
    mustNot: ['proposeSetFilter', ...read],
  },
  {
    id: 'filter-narrow',
    text: 'narrow this down to gold tier',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: true,
    context: customers,
    mustNot: read,
  },
  {
    id: 'propose-filter-suggest',
    text: 'suggest a filter for the orders that need attention',
    expect: ['proposeSetFilter'],
    namesCapability: true,
    context: orders,
    mustNot: ['setFilter', ...read],
  },
  {
    id: 'propose-filter-dont-touch',
    text: "don't change my view, but offer a filter for cheap products",
    expect: ['proposeSetFilter'],
    namesCapability: true,
    context: products,
    mustNot: ['setFilter', ...read],
  },
  {
    id: 'propose-filter-button',
    text: 'gimme a one-click filter for cancelled orders',
    expect: ['proposeSetFilter'],
    namesCapability: true,
    context: orders,
    mustNot: ['setFilter', ...read],
  },
  {
    id: 'propose-filter-idea',
    text: 'any idea how to find the suspicious ones here?',
    expect: [['proposeSetFilter', 'runQuery', 'countRows']],
    namesCapability: false,
    context: orders,
    mustNot: ['setFilter', ...read],
  },

  // ── openRow / proposeOpenRow ─────────────────────────────────────────────────────────────
  {
    id: 'openrow-open',
    text: 'open order 17 in a tab',
    expect: ['openRow'],
    namesCapability: true,
    mustNot: ['proposeOpenRow', ...read],
  },
  {
    id: 'openrow-detail',
    text: 'show the record detail for customer 3',
    expect: [['openRow', 'proposeOpenRow', 'getRow']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'openrow-typo',
    text: 'open teh record for product 5',
    expect: [['openRow', 'proposeOpenRow']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'propose-row-biggest',
    text: 'which order is the biggest? link it',
    expect: ['runQuery', 'proposeOpenRow'],
    namesCapability: false,
    mustNot: ['openRow', ...read],
  },
  {
    id: 'propose-row-button',
    text: 'give me a button to customer 9',
    expect: ['proposeOpenRow'],
    namesCapability: true,
    mustNot: ['openRow', ...read],
  },
  {
    id: 'propose-row-later',
    text: "i'll check order 23 later, just leave me a link",
    expect: ['proposeOpenRow'],
    namesCapability: false,
    mustNot: ['openRow', ...read],
  },

  // ── In the user's own language: the discoverable tools found by their words ──────────────
  {
    id: 'lang-zh-export',
    text: '把结果导出为JSON文件',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-zh-hant-audit',
    text: '誰核准了剛才的操作？看一下稽核日誌',
    expect: ['listAuditLog'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-ja-explain',
    text: 'このクエリが遅い理由を実行計画で見せて',
    expect: ['explainQuery'],
    namesCapability: true,
    mustNot: read,
    context: { workbench: 'select * from orders where customer_id = 5' },
  },
  {
    id: 'lang-ko-relations',
    text: '주문 테이블의 외래 키 관계를 알려줘',
    expect: [['describeRelations', 'describeTable']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-es-staged',
    text: '¿qué cambios pendientes hay sin confirmar?',
    expect: ['listStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-pt-index',
    text: 'quais índices não são utilizados na tabela orders?',
    expect: ['getIndexStats'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-fr-saved',
    text: 'montre-moi mes requêtes enregistrées',
    expect: ['listSavedSpecs'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'lang-de-diff',
    text: 'zeig mir die ausstehenden Änderungen vorher und nachher im Vergleich',
    expect: [['diffStagedChanges', 'listStagedChanges']],
    namesCapability: true,
    mustNot: read,
  },

  // ── startExport / proposeExport (discoverable) ───────────────────────────────────────────
  {
    id: 'export-csv',
    text: 'export this as CSV',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'export-json',
    text: 'export the orders table to json',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-file',
    text: 'save these rows as a file',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    context: { tab: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'paid' } } },
    mustNot: read,
  },
  {
    id: 'export-dump',
    text: 'dump customers to ndjson',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-typo',
    text: 'exprot products to excel pls',
    expect: [['startExport', 'proposeExport']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'export-now',
    text: 'start the csv export of order_items now',
    expect: ['startExport'],
    namesCapability: true,
    mustNot: ['proposeExport', ...read],
  },
  {
    id: 'propose-export-button',
    text: 'offer an export button',
    expect: ['proposeExport'],
    namesCapability: true,
    context: orders,
    mustNot: ['startExport', ...read],
  },
  {
    id: 'propose-export-suggest',
    text: 'suggest a download of the refunded orders, i will click it',
    expect: ['proposeExport'],
    namesCapability: true,
    mustNot: ['startExport', ...read],
  },
  {
    id: 'propose-export-later',
    text: 'i might want this in a spreadsheet later',
    expect: ['proposeExport'],
    namesCapability: false,
    context: customers,
    mustNot: ['startExport', ...read],
  },
  {
    id: 'propose-export-typo',
    text: 'download buton for this csv?',
    expect: ['proposeExport'],
    namesCapability: true,
    context: products,
    mustNot: ['startExport', ...read],
  },

  // ── drawChart / proposeChart (discoverable): graded for the tool and a spec that draws ───
  {
    id: 'chart-revenue-month',
    text: 'chart revenue by month',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-status-bar',
    text: 'bar chart of how many orders each status has',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-plot-typo',
    text: 'plot the top 10 prodcuts by units sold',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-zh',
    text: '画一个各国家客户数量的柱状图',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-de',
    text: 'zeichne ein Diagramm der Bestellungen pro Monat',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-es',
    text: 'haz un gráfico de pedidos por estado',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-ja',
    text: '月別の売上をグラフで見せて',
    expect: [['drawChart', 'proposeChart']],
    namesCapability: true,
    mustNot: read,
    mustRun: true,
  },
  {
    id: 'chart-now',
    text: 'draw the chart of orders per status right now, no button',
    expect: ['drawChart'],
    namesCapability: true,
    mustNot: ['proposeChart', ...read],
    mustRun: true,
  },
  {
    id: 'propose-chart-button',
    text: 'give me a button that draws a chart of revenue per country, i will click it',
    expect: ['proposeChart'],
    namesCapability: true,
    mustNot: ['drawChart', ...read],
  },
  {
    id: 'propose-chart-suggest',
    text: 'suggest a graph of signups per month, but do not run it yet',
    expect: ['proposeChart'],
    namesCapability: true,
    mustNot: ['drawChart', ...read],
  },
  {
    id: 'propose-chart-fr',
    text: 'propose-moi un bouton pour un graphique des ventes par mois',
    expect: ['proposeChart'],
    namesCapability: true,
    mustNot: ['drawChart', ...read],
  },

  // ── stageInsertRows ──────────────────────────────────────────────────────────────────────
  {
    id: 'insert-customer',
    text: 'add a new customer: Ada Lovelace, ada@example.com, London, GB',
    expect: ['stageInsertRows'],
    namesCapability: true,
  },
  {
    id: 'insert-product',
    text: 'create a product "Blue mug", sku MUG-9, 12.50, category kitchen',
    expect: ['stageInsertRows'],
    namesCapability: true,
  },
  {
    id: 'insert-typo',
    text: 'insrt a row for bob, bob@x.io, paris FR',
    expect: ['stageInsertRows'],
    namesCapability: true,
    context: customers,
  },
  {
    id: 'insert-attachment',
    text: 'add everyone from the attached csv as customers',
    expect: ['readAttachment', 'stageInsertRows'],
    namesCapability: true,
  },

  // ── stageUpdateRows ──────────────────────────────────────────────────────────────────────
  {
    id: 'update-fix',
    text: 'fix the typo in customer 12s name, its "Jon" should be "John"',
    expect: ['stageUpdateRows'],
    namesCapability: true,
  },
  {
    id: 'update-status',
    text: 'mark order 5 as shipped',
    expect: ['stageUpdateRows'],
    namesCapability: false,
  },
  {
    id: 'update-selected',
    text: 'set these to gold tier',
    expect: ['getSelection', 'stageUpdateRows'],
    namesCapability: true,
    context: { ...customers, selection: [2, 3] },
  },
  {
    id: 'update-price',
    text: 'bump the price of product 4 to 19.99',
    expect: ['stageUpdateRows'],
    namesCapability: false,
  },
  {
    id: 'update-typo',
    text: 'chnage order 8 currency to EUR',
    expect: ['stageUpdateRows'],
    namesCapability: true,
  },

  // ── stageDeleteRows ──────────────────────────────────────────────────────────────────────
  {
    id: 'delete-these',
    text: 'delete these rows',
    expect: ['getSelection', 'stageDeleteRows'],
    namesCapability: true,
    context: { ...orders, selection: [30, 31] },
  },
  {
    id: 'delete-customer',
    text: 'remove customer 99, they asked to be forgotten',
    expect: ['stageDeleteRows'],
    namesCapability: true,
  },
  {
    id: 'delete-typo',
    text: 'get rid of product 20 its discontinued',
    expect: ['stageDeleteRows'],
    mustNot: ['stageUpdateRows'],
    namesCapability: false,
  },
  { id: 'delete-erase', text: 'erase order 13', expect: ['stageDeleteRows'], namesCapability: true },

  // ── Multi-step turns ─────────────────────────────────────────────────────────────────────
  {
    id: 'multi-count-then-filter',
    text: 'how many pending orders are there? then show just those',
    expect: [
      ['countRows', 'runQuery'],
      ['setFilter', 'proposeSetFilter'],
    ],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'multi-export-status',
    text: 'export refunded orders to csv and tell me when its done',
    expect: ['startExport', 'getExportStatus'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-schema-query',
    text: 'figure out which table has emails and count the gmail ones',
    expect: [
      ['findColumns', 'listTables', 'describeTable'],
      ['countRows', 'runQuery'],
    ],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'multi-relations-query',
    text: 'how are orders and products linked? then give me revenue per product',
    expect: ['describeRelations', 'runQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-explain-index',
    text: 'this is slow - check the plan and whether the indexes are used',
    expect: ['explainQuery', 'getIndexStats'],
    namesCapability: true,
    context: { workbench: 'select * from orders where customer_id = 7' },
    mustNot: read,
  },
  {
    id: 'multi-staged-diff',
    text: 'what did you stage, and show me the diff',
    expect: ['listStagedChanges', 'diffStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-view-export',
    text: 'whatever im looking at, export it to json',
    expect: [
      ['getActiveView', 'startExport', 'proposeExport'],
      ['startExport', 'proposeExport'],
    ],
    namesCapability: true,
    context: products,
    mustNot: read,
  },
  {
    id: 'multi-describe-filter',
    text: 'look at the columns first, then filter to orders over 500',
    expect: ['describeTable', ['setFilter', 'proposeSetFilter']],
    namesCapability: true,
    context: orders,
    mustNot: read,
  },
  {
    id: 'multi-spec-export',
    text: "export my saved view 'big spenders' as csv",
    expect: ['getSavedSpec', ['startExport', 'proposeExport']],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-selection-delete-check',
    text: 'what are these? if they are all cancelled, delete them',
    expect: ['getSelection', 'stageDeleteRows'],
    namesCapability: true,
    context: { ...orders, selection: [40, 41] },
  },
  {
    id: 'multi-audit-staged',
    text: 'did i approve anything today, and is anything still waiting in staging',
    expect: ['listAuditLog', 'listStagedChanges'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-validate-run',
    text: 'check this then run it: select country, count(*) from customers group by country',
    expect: ['validateQuery', 'runQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-sample-filter',
    text: 'filter to the status that means money came back',
    expect: [
      ['sampleValues', 'describeTable', 'runQuery'],
      ['setFilter', 'proposeSetFilter'],
    ],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'multi-history-explain',
    text: 'why was my last query so slow',
    expect: ['listQueryHistory', 'explainQuery'],
    namesCapability: true,
    mustNot: read,
  },
  {
    id: 'multi-count-propose-open',
    text: 'are there any out-of-stock products? if so give me a button to see them',
    expect: [
      ['countRows', 'runQuery'],
      ['proposeOpenTable', 'proposeSetFilter'],
    ],
    namesCapability: true,
    mustNot: ['openTable', 'setFilter', ...read],
  },

  // ── Vague, in the context of an open tab ─────────────────────────────────────────────────
  {
    id: 'vague-anything-weird',
    text: 'anything weird here?',
    expect: [['getActiveView', 'runQuery', 'sampleValues', 'describeTable', 'getTableStats']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'vague-this-week',
    text: 'just this week',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'vague-newest',
    text: 'newest first',
    expect: [['setFilter', 'proposeSetFilter']],
    namesCapability: false,
    context: customers,
    mustNot: read,
  },
  {
    id: 'vague-how-many',
    text: 'how many is that',
    expect: [['countRows', 'getActiveView', 'runQuery']],
    namesCapability: false,
    context: { tab: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'cancelled' } } },
    mustNot: read,
  },
  {
    id: 'vague-dupes',
    text: 'are there dupes',
    expect: [['runQuery', 'getActiveView', 'describeTable']],
    namesCapability: false,
    context: customers,
    mustNot: read,
  },
  {
    id: 'vague-send-boss',
    text: 'i need to send this to my boss',
    expect: [['startExport', 'proposeExport']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'vague-whats-this',
    text: 'what is this column "note" for',
    expect: [['describeTable', 'sampleValues']],
    namesCapability: false,
    context: orders,
    mustNot: read,
  },
  {
    id: 'vague-undo',
    text: 'undo what you did to the customers',
    expect: [['listStagedChanges', 'diffStagedChanges']],
    namesCapability: false,
    mustNot: read,
  },
  {
    id: 'vague-speed',
    text: 'can we make this faster',
    expect: [['explainQuery', 'getIndexStats']],
    namesCapability: false,
    context: { workbench: 'select * from order_items where product_id = 3' },
    mustNot: read,
  },

  // ── a schema of 1,000 more tables: lists that page, a table too wide to show whole ──────────
  {
    id: 'large-how-many-tables',
    text: 'how many tables do we even have',
    expect: ['listTables'],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
  {
    id: 'large-finance-tables',
    text: 'what tables are there in finance?',
    expect: ['listTables'],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
  {
    id: 'large-wide-columns',
    text: 'what columns does campaign_metrics have',
    expect: ['describeTable'],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
  {
    id: 'large-loyalty-column',
    text: 'where do we keep the customer loyalty tier',
    expect: [['findColumns', 'describeTable']],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
  {
    id: 'large-wide-peek',
    text: 'show me a few rows of campaign metrics',
    expect: [['runQuery', 'openTable', 'proposeOpenTable']],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
  {
    id: 'large-orders-count',
    text: 'how many orders are there',
    expect: [['countRows', 'runQuery']],
    namesCapability: false,
    shop: 'large',
    mustNot: read,
  },
];

/**
 * Each row's own requests (its `asks`): what a team adding a row writes there instead of here. A
 * request for a read never stages; the wording is the row's, so it names the capability.
 */
export function askedRequests(rows: readonly CatalogRow[] = CATALOG_ROWS): EvalRequest[] {
  return rows.flatMap((row) =>
    isToolName(row.name)
      ? (row.asks ?? []).map((text, index) => ({
          id: `${row.name}-asks-${index + 1}`,
          text,
          expect: [row.name],
          namesCapability: true,
          ...(accessOf(row.name) === 'stage' ? {} : { mustNot: STAGE_TOOLS }),
        }))
      : [],
  );
}

/** At least 150 requests covering every row, the propose pairs, multi-step turns and searches. */
export const CORPUS: readonly EvalRequest[] = [...WRITTEN, ...askedRequests()];

/** The tools a request's steps name, deduplicated. */
export function toolsOf(request: EvalRequest): ToolName[] {
  return [...new Set(request.expect.flatMap((step) => (typeof step === 'string' ? [step] : [...step])))];
}

/** Requests whose id contains any of the comma-separated words (or all, without a filter). */
export function selectRequests(corpus: readonly EvalRequest[], only?: string, limit?: number): EvalRequest[] {
  const words = (only ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);
  const chosen =
    words.length === 0
      ? [...corpus]
      : corpus.filter((request) => words.some((word) => request.id.includes(word)));
  return limit === undefined ? chosen : chosen.slice(0, limit);
}
