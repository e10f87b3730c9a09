// @toolrow/tools: a zod input schema and an execute for every tool row but the loop tool. See README.md.
export {
  type BoundedRows,
  boundRows,
  clipText,
  DEFAULT_LIMITS,
  modelValue,
  type ToolLimits,
} from './bounds.ts';
export { estimateTokens, RESULT_TOKEN_BUDGET } from './budget.ts';
export { exportsDirOf, limitsOf, type ToolContext } from './context.ts';
export {
  DISPLAY_FIELD,
  type ImplementedToolName,
  outputForModel,
  type ProposableImplementation,
  type ProposableToolName,
  type ProposalChip,
  type ToolImplementation,
} from './define.ts';
export { describeIssues, type InputIssue, isToolError, ToolError, type ToolErrorCode } from './errors.ts';
export {
  canonicalOp,
  FILTER_INPUT_OPS,
  type FilterInput,
  type FilterInputCondition,
  type FilterInputItem,
  type FilterInputOp,
  fromFilter,
  NEGATED_OPS,
  type NegatedOp,
  normalizeFilterInput,
  toFilter,
} from './filter-input.ts';
export { TOOL_OUTPUT_SCHEMAS, type ToolOutputSchema } from './generated/output-schemas.ts';
export * from './generated/write-scopes.ts';
export {
  assertImplementedTool,
  IMPLEMENTED_TOOLS,
  implementationOf,
  inputJsonSchema,
  invokeTool,
  isImplementedTool,
  missingImplementationMessage,
  parseToolInput,
  TOOL_IMPLEMENTATIONS,
  type ToolImplementations,
  type ToolInput,
  type ToolOutput,
  toToolError,
  UNIMPLEMENTED_TOOLS,
} from './registry.ts';
export { MODEL_ADVICE } from './statement-advice.ts';
export { tablesOfCall } from './tables-of.ts';
