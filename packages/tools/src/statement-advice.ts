// What a refused statement's message tells a model to do instead: the tools that do it, named from
// the rows (a renamed row breaks the build here).
import type { ToolName } from '@toolrow/catalog';
import type { StatementAdvice } from '@toolrow/datasource';
import { WRITE_SCOPE_TOOLS } from './generated/write-scopes.ts';

const EXPLAIN_TOOL: ToolName = 'explainQuery';
const SAMPLE_TOOL: ToolName = 'sampleValues';

/** The advice every engine's statement check is given when a model sent the statement. */
export const MODEL_ADVICE: StatementAdvice = {
  write: `Queries are read-only. To change data, use the stage tools (${WRITE_SCOPE_TOOLS.staging.join(', ')}); the user reviews and commits staged changes.`,
  explain: `send the SELECT alone (${EXPLAIN_TOOL} shows its plan without running it)`,
  export: `export them (${WRITE_SCOPE_TOOLS.files.join(', ')}) instead`,
  sample: `${SAMPLE_TOOL} shows a column's common values`,
  appState: 'Use the silent tools (staged changes, saved specs, history, audit log) to read it.',
};
