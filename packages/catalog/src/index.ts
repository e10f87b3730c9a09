// Browser-safe: this package imports only the declarations and its own generated files.
export type {
  EngineFeature,
  McpExposure,
  StagedOperation,
  ToolAccess,
  ToolRow,
  ToolTier,
  ToolVisibility,
  ToolWrites,
} from '@toolrow/declarations';
export { describeCall, filterText, titleOf } from './describe-call.ts';
export * from './generated/needs.ts';
export * from './generated/tiers.ts';
export * from './generated/tool-names.ts';
export * from './helpers.ts';
