// What the server is built from and what it gives back; the routes and start.ts read these.

import { MODEL_FORMS } from '@toolrow/agent';
import type { DataSource } from '@toolrow/datasource';
import type { ApprovalInbox } from '@toolrow/mcp-server';
import type { ConnectionHub, ToolrowState } from '@toolrow/state';
import type { LanguageModel } from 'ai';
import type { Hono } from 'hono';
import type { ChatContext, ChatHandler } from './chat.ts';
import type { ConsentService } from './oauth.ts';
import type { ServerEnv } from './request-connection.ts';

export interface ToolrowServerOptions {
  /** The user's data (the active connection's at start); the server does not close it. */
  source: DataSource;
  /** Toolrow's own state; the server does not close it. */
  state: ToolrowState;
  /** The profile whose mode, UI state and grants the app uses (default 'default'): the connection's name. */
  profile?: string;
  /**
   * The connections the app may switch between (the header's switcher; GET/POST /api/connections).
   * Without it the app stays on `source` and says so when asked to switch.
   */
  connections?: ConnectionHub;
  /** Relative pglite: paths of connections added in the app resolve against this (default process.cwd()). */
  cwd?: string;
  /** Settings: TOOLROW_MODEL and friends. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The chat's language model. Omit it to use TOOLROW_MODEL; pass null for "no model"; tests pass
   * a scripted MockLanguageModelV4 (this option is how end-to-end tests script the agent).
   */
  model?: LanguageModel | null;
  /** Builds the chat from a model; the default is @toolrow/agent (chat.ts). */
  createChat?: (model: LanguageModel, context: ChatContext) => Promise<ChatHandler> | ChatHandler;
  /** Mount the MCP endpoint (off by default). */
  mcp?: McpMount | null;
  /**
   * The MCP approval inbox the app shows and answers (GET/POST /api/mcp/approvals). Pass the one
   * the MCP mount asks into; default a new one with TOOLROW_MCP_APPROVAL_TIMEOUT's wait.
   */
  approvals?: ApprovalInbox;
  /** The desktop build to serve at `/` (default apps/desktop/dist); null serves no UI. */
  desktopDir?: string | null;
  /** Version shown in the status bar. */
  version?: string;
  /** Logs server-side errors (default console.error). */
  log?: (message: string) => void;
  /**
   * The secret every /api route and page requires (default: TOOLROW_APP_TOKEN from env, else a
   * random one). See app-auth.ts; the MCP paths keep their own bearer tokens.
   */
  token?: string;
  /**
   * The latest `toolrow eval` run, which the Agent tools page shows next to each row (default
   * <data dir>/eval/latest.json, where the command writes it). Read on every request; never written.
   */
  latestEvalPath?: string;
}

/** A fetch handler for the MCP paths, built by the caller from @toolrow/mcp-server (see mcp.ts). */
export interface McpMount {
  path: string;
  metadataPath: string;
  /** Every path it serves, outside the app's login (default: path and metadataPath). */
  paths?: readonly string[];
  /** The authorization server's consent requests, when the mount is one (see oauth.ts). */
  consent?: ConsentService;
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface ToolrowServer {
  app: Hono<ServerEnv>;
  /** The port the guard accepts in Host headers; set by listen(), or by tests using app.request. */
  port: number;
  /** The app secret: `Authorization: Bearer <token>`, or the cookie the `?token=` link sets. */
  readonly token: string;
  /** Gated MCP calls waiting for the user (Manual mode, and what Auto asks). */
  readonly approvals: ApprovalInbox;
  /** `url` is the base (no token); `openUrl` the link that signs a browser in. */
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; port: number; openUrl: string }>;
  close(): Promise<void>;
}

/** How to set a model, for the chat's answer and the status bar when there is none (forms from @toolrow/agent). */
export const NO_MODEL_HINT = `Pick one in Settings (click the model in the status bar): it applies to the next message. Or set TOOLROW_MODEL to one of these before \`npm start\`:\n${MODEL_FORMS.map((form) => `  ${form.replace(/\s{2,}/, ' — ')}`).join('\n')}`;
