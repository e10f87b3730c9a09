// What every route module is given: the server's options and the handles it shares.
import type { QueryRunner } from '@toolrow/datasource';
import type { ApprovalInbox } from '@toolrow/mcp-server';
import type { ToolContext } from '@toolrow/tools';
import type { LanguageModel } from 'ai';
import type { ChatHandler } from '../chat.ts';
import type { AppConnections, RequestConnection } from '../request-connection.ts';
import type { ToolrowServer, ToolrowServerOptions } from '../server-types.ts';

export interface RouteContext {
  readonly options: ToolrowServerOptions;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Logs server-side errors. */
  readonly log: (message: string) => void;
  /** The server: its port once it listens. */
  readonly server: ToolrowServer;
  /** The active connection, and opening the others. */
  readonly connections: AppConnections;
  /** The model of the server (tests), else undefined: the profile's, else TOOLROW_MODEL. */
  readonly fixedModel: LanguageModel | null | undefined;
  readonly approvals: ApprovalInbox;
  /** The chat of a connection, or why there is none. */
  currentChat(connection: RequestConnection): Promise<{ chat: ChatHandler | null; problem: string | null }>;
  /** A language's statement check (the connection's runner or one of its modes), its refusal a 400 for a person. */
  checkStatement(runner: QueryRunner, text: string): Promise<{ statement: string }>;
  /** A tool context acting as the user on the connection. */
  userContext(connection: RequestConnection, signal?: AbortSignal): ToolContext;
}
