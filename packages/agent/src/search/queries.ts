// Realistic requests and the tool each should rank first, shared by the scorer's tests and the
// search benchmark. Discoverable tools matter most: the user's wording is how the model finds them.
import type { ToolName } from '@toolrow/catalog';

/** The scorer's weights were tuned against these; the tests require every one to rank first. */
export const TUNING_QUERIES: readonly [query: string, expected: ToolName][] = [
  ['export this as CSV', 'startExport'],
  ['export the orders table to json', 'startExport'],
  ['save these rows as a file', 'startExport'],
  ['dump the table to ndjson', 'startExport'],
  ['why is this query slow', 'explainQuery'],
  ['show me the query plan', 'explainQuery'],
  ['foreign keys', 'describeRelations'],
  ['how do these tables relate', 'describeRelations'],
  ['what references customers', 'describeRelations'],
  ['unused indexes', 'getIndexStats'],
  ['index sizes on orders', 'getIndexStats'],
  ['my saved specs', 'listSavedSpecs'],
  ['what changes are staged', 'listStagedChanges'],
  ['diff of the staged changes', 'diffStagedChanges'],
  ['before and after of the pending edits', 'diffStagedChanges'],
  ['is my export done', 'getExportStatus'],
  ['export progress', 'getExportStatus'],
  ['audit log', 'listAuditLog'],
  ['who approved that', 'listAuditLog'],
  ['offer an export button', 'proposeExport'],
  ['suggest a button to export', 'proposeExport'],
  ['how many orders', 'countRows'],
  ['sql editor', 'openWorkbench'],
  ['the attached file', 'readAttachment'],
  ['delete these rows', 'stageDeleteRows'],
  ['insert a new customer', 'stageInsertRows'],
  ['fix the typo in this record', 'stageUpdateRows'],
  ['filter to last month', 'setFilter'],
  ['what tables are there', 'listTables'],
  ['which column holds the email', 'findColumns'],
];

/**
 * Written after the weights were fixed and never used to tune them. Their misses did lead to a
 * keyword edit in the rows (approved/denied, connected/linked, write to file), so they are no
 * longer blind: the benchmark reports them separately, and new blind queries should be added
 * here rather than reusing these.
 */
export const HELD_OUT_QUERIES: readonly [query: string, expected: ToolName][] = [
  ['write the results to a csv file', 'startExport'],
  ['how is the customers table connected to orders', 'describeRelations'],
  ['execution plan for my select', 'explainQuery'],
  ['which indexes are never used', 'getIndexStats'],
  ['pending edits waiting for review', 'listStagedChanges'],
  ['compare staged rows before and after', 'diffStagedChanges'],
  ['has the download finished', 'getExportStatus'],
  ['show the approvals history', 'listAuditLog'],
  ['load my saved view named churn', 'getSavedSpec'],
  ['list bookmarks', 'listSavedSpecs'],
  ['put a button in the chat to export', 'proposeExport'],
  ['what did I approve yesterday', 'listAuditLog'],
];
