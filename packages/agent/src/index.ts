// @toolrow/agent: the agent loop on the AI SDK. See README.md for the API and how to mount it.

export { splitCamel, stem, terms } from '@toolrow/catalog/search';
export {
  type Agent,
  type AgentMessageMetadata,
  type AgentOptions,
  type AgentUIMessage,
  approvalResponse,
  createAgent,
  DEFAULT_INSTRUCTIONS,
  defaultInstructions,
  type PendingApproval,
  type TurnResult,
  type TurnUsage,
  turnUsage,
} from './agent.ts';
export { type AuditDecision, type AuditEntry, type DecidedBy, inputDigest } from './audit.ts';
export { appStateGateStore, toolSchemas, toolsBackend } from './backends.ts';
export { acceptChip, type Chip, chipOf } from './chips.ts';
export {
  COST_TOKENIZER,
  definitionsSent,
  type ToolCost,
  type ToolDefinitionCost,
  toolCostReport,
  toolDefinitionCost,
} from './cost.ts';
export {
  type ApprovalAnswer,
  discoveredTools,
  pendingApprovalAnswers,
  SEARCH_TOOL,
  searchesThisTurn,
} from './history.ts';
export {
  coveredByGrants,
  type Grant,
  isPermissionMode,
  type LadderOutcome,
  ladder,
  normaliseTable,
  PERMISSION_MODE_LABELS,
  PERMISSION_MODES,
  type PermissionMode,
} from './ladder.ts';
export { modelErrorText } from './model-errors.ts';
export {
  checkModelSetting,
  type ListedModel,
  listModels,
  MODEL_PROVIDERS,
  type ModelProvider,
  type ModelTestResult,
  modelFromSetting,
  modelLabel,
  type ProfileModel,
  resolveProfileModel,
  testModel,
} from './model-settings.ts';
export {
  connectModel,
  MODEL_FORMS,
  ModelConfigError,
  type ModelConnection,
  type ModelSpec,
  parseModelSpec,
  type ResolveModelOptions,
  resolveModel,
} from './models.ts';
export type {
  ExecutableToolName,
  GateStore,
  ProfilePermissions,
  ToolBackend,
  ToolCallContext,
} from './ports.ts';
export {
  notActiveMessage,
  refusalMessage,
  ToolRefusal,
  unknownToolMessage,
} from './refusal.ts';
export { searchToolsInputSchema } from './search/input-schema.ts';
export {
  DEFAULT_SCORER_PARAMETERS,
  type ScorerParameters,
  SearchIndex,
  type SearchOptions,
  searchCatalog,
  summaryLine,
  type ToolMatch,
} from './search/scorer.ts';
export {
  askReason,
  autoReason,
  buildToolSet,
  SEARCH_BUDGET,
  type SearchBudgetExhausted,
  type SearchToolsOutput,
  searchBudgetExhausted,
  Turn,
  type TurnOptions,
} from './turn.ts';
