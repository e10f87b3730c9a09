// @toolrow/server: the HTTP server of the desktop app. See README.md.
export { appTokenFrom } from './app-auth.ts';
export { APP_FILE, type AppFile, CONNECTION_HEADER, findRunningApp, type RunningApp } from './app-file.ts';
export { createAgentChat, modelIdOf, resolveModelFromEnv } from './chat.ts';
export { HttpError, toErrorResponse } from './errors.ts';
export { allowedHosts, checkRequest, type GuardOptions, type GuardVerdict } from './guard.ts';
export { type McpOptions, mountMcp } from './mcp.ts';
export {
  type ChatContext,
  type ChatHandler,
  createToolrowServer,
  type McpMount,
  NO_MODEL_HINT,
  type ToolrowServer,
  type ToolrowServerOptions,
} from './server.ts';
export { DEFAULT_PORT, type StartedApp, type StartOptions, startApp } from './start.ts';
