// Browser-safe: this package imports only the declarations and its own generated files.
export type {
  McpExposure,
  StagedOperation,
  ToolAccess,
  ToolEngine,
  ToolRow,
  ToolTier,
  ToolVisibility,
  ToolWrites,
} from '@toolrow/declarations';
export { describeCall, filterText, titleOf } from './describe-call.ts';
export * from './generated/engines.ts';
export * from './generated/tiers.ts';
export * from './generated/tool-names.ts';
export * from './helpers.ts';
