// @toolrow/eval: a corpus of requests as users type them, a runner that puts each through the real
// agent loop on a chosen model, the reports it writes, and the visibility audit. See README.md.
export {
  AUDIT_TOP,
  type Audit,
  type AuditRow,
  auditVisibility,
  NAMING_THRESHOLD,
  wordingNames,
} from './audit.ts';
export {
  CORPUS,
  type EvalRequest,
  type RequestContext,
  STAGE_TOOLS,
  type Step,
  selectRequests,
  toolsOf,
} from './corpus.ts';
export { type CallOutcome, type Grade, grade, needsSearch, type TracedCall, unknownTools } from './grade.ts';
export { renderHtml } from './html.ts';
export {
  buildReport,
  type Change,
  type Comparison,
  compareReports,
  type EvalReport,
  type EvalSummary,
  formatComparison,
  formatSummary,
  parseReport,
  percent,
  type RequestFigures,
  type ToolFigures,
} from './report.ts';
export {
  type Attempt,
  type EvalProgress,
  type RequestAttempts,
  type RunEvalOptions,
  requestsServedBy,
  runEval,
} from './run.ts';
