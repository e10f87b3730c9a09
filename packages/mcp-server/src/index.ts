// The package's API: what the app, the CLI and a consumer use (the modules' other exports are
// internals, imported by path inside the package and its tests).
export { annotationsFor } from './annotations.ts';
export {
  APPROVAL_TIMEOUT_ENV,
  APPROVALS_PATH,
  type ApprovalInbox,
  approvalTimeoutFromEnv,
  createApprovalInbox,
  createApprovalsHandler,
  type McpApprovalRequest,
  type McpApprovals,
  remoteApprovals,
} from './approvals.ts';
export type { McpBackend } from './backend.ts';
export { createMcpBridgeHandler, MCP_BRIDGE_HEADERS, MCP_BRIDGE_PATH } from './bridge.ts';
export { renderClientConfig } from './client-config.ts';
export { createFairShare } from './fair-share.ts';
export { gateCall } from './gate.ts';
export { MCP_EXCLUDED_TOOLS, MCP_SCOPE_TOOLS, MCP_SCOPES, type McpScope } from './generated/mcp-scopes.ts';
export { createMcpHttpHandler, DEFAULT_MCP_PORT, serveMcpHttp } from './http.ts';
export { iconsFor } from './icons.ts';
export {
  type AuthorizationServer,
  CONSENT_LIFETIMES,
  type ConsentLifetime,
  type ConsentRequest,
  createAuthorizationServer,
  DEFAULT_CONSENT_LIFETIME,
  OAUTH_PATHS,
} from './oauth/authorization-server.ts';
export { classifyRedirectUri, type DocumentFetch } from './oauth/clients.ts';
export { grantsMatching, toWireClient, type WireMcpClient } from './oauth/connections.ts';
export { createBearerVerifier } from './oauth/verifier.ts';
export { capScope, isMcpScope, parseScope, refusalFor, scopeCovers, toolsForScope } from './scopes.ts';
export { createToolrowMcpServer, SERVER_NAME, SERVER_VERSION } from './server.ts';
export { resolveStdioPrincipal, STDIO_ENV, serveMcpStdio } from './stdio.ts';
export { createToken, DEFAULT_TOKEN_TTL, type McpPrincipal, parseTtl } from './tokens.ts';
export { createToolrowBackend } from './toolrow-backend.ts';
