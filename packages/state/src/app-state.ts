import type { Actor, ExportJob } from '@toolrow/datasource';
import type {
  Attachment,
  AttachmentWithContent,
  AuditDecision,
  AuditEntry,
  ConnectionInfo,
  Conversation,
  ConversationMessage,
  ConversationSummary,
  Grant,
  Grantee,
  McpToken,
  ModelSetting,
  NewConnection,
  OAuthAccessCheck,
  OAuthClient,
  OAuthCodeRedemption,
  OAuthGrant,
  OAuthRefresh,
  OAuthTokenPair,
  PermissionMode,
  Profile,
  QueryHistoryEntry,
  SavedModel,
  SavedSpec,
  TokenCheck,
  UiState,
} from './app-types.ts';

export interface ListOptions {
  /** Newest first; default 50, at most 1000. */
  limit?: number;
  offset?: number;
  profile?: string;
  /** Only what this actor did (ran, decided, exported): what an MCP client sees of the others'. */
  actor?: Actor;
}

/**
 * Typed access to Toolrow's own state (schema toolrow_app). Staging and export jobs have their own
 * engines (DataSource.staging / DataSource.exports) over the same tables.
 */
export interface AppState {
  profiles: {
    /** The profile, created with mode 'manual' when missing. */
    ensure(name?: string): Promise<Profile>;
    list(): Promise<Profile[]>;
    setMode(name: string, mode: PermissionMode): Promise<Profile>;
    /** The profile's remembered grants: one grantee's, or (omitted) everyone's, for review. */
    grants(profile: string, grantee?: Grantee): Promise<Grant[]>;
    /** Whether this grantee (the chat agent, or one MCP client) holds the grant; never another's. */
    hasGrant(profile: string, grantee: Grantee, tool: string, table: string): Promise<boolean>;
    addGrant(grant: {
      profile: string;
      grantee: Grantee;
      tool: string;
      table: string;
      grantedBy: Actor;
    }): Promise<Grant>;
    /** Removes the matching grants of the profile (every one when nothing more is given). Returns how many. */
    revokeGrants(
      profile: string,
      match?: { grantee?: Grantee; tool?: string; table?: string },
    ): Promise<number>;
    /** Removes a grantee's grants in every profile (its MCP token or connection was revoked). */
    revokeGranteeGrants(grantee: Grantee): Promise<number>;
  };
  ui: {
    /** The profile's UI state; empty (no tabs) when never written. */
    get(profile?: string): Promise<UiState>;
    /** Replaces the given fields; returns the new state. A focusedTabId must name an open tab. */
    update(
      profile: string,
      patch: Partial<Pick<UiState, 'tabs' | 'focusedTabId' | 'selection'>>,
    ): Promise<UiState>;
  };
  specs: {
    list(): Promise<SavedSpec[]>;
    /** Throws DataSourceError 'not-found' naming the saved specs there are. */
    get(name: string): Promise<SavedSpec>;
    /** Creates or replaces by name. */
    save(
      spec: Pick<SavedSpec, 'name' | 'kind' | 'spec'> & { description?: string | null },
    ): Promise<SavedSpec>;
    delete(name: string): Promise<boolean>;
  };
  history: {
    add(entry: Omit<QueryHistoryEntry, 'id' | 'createdAt'>): Promise<QueryHistoryEntry>;
    list(options?: ListOptions): Promise<QueryHistoryEntry[]>;
  };
  audit: {
    /** Always-on log of gated decisions. `input` is digested (sha-256 of canonical JSON), never stored. */
    record(entry: {
      tool: string;
      input: unknown;
      decision: AuditDecision;
      decidedBy: Actor;
      profile: string;
      table?: string | null;
      detail?: string | null;
    }): Promise<AuditEntry>;
    list(options?: ListOptions & { tool?: string; decision?: AuditDecision }): Promise<AuditEntry[]>;
  };
  exportJobs: {
    /** Throws DataSourceError 'not-found'. */
    get(id: string): Promise<ExportJob>;
    list(options?: ListOptions): Promise<ExportJob[]>;
  };
  attachments: {
    add(attachment: {
      profile?: string;
      name: string;
      mediaType: string;
      content: Uint8Array | string;
    }): Promise<Attachment>;
    /** By id, or by name (the newest of that name). Throws DataSourceError 'not-found'. */
    get(idOrName: string, profile?: string): Promise<AttachmentWithContent>;
    list(profile?: string): Promise<Attachment[]>;
    delete(id: string): Promise<boolean>;
  };
  connections: {
    /** The configured connections; the one this process uses is marked active. */
    list(): Promise<ConnectionInfo[]>;
    /** Remembers a connection (no secrets: pass a description, not a password). */
    save(connection: Omit<ConnectionInfo, 'active'>): Promise<ConnectionInfo>;
    /** Adds a named connection; throws DataSourceError 'already-exists' when the name is taken. */
    add(connection: NewConnection): Promise<ConnectionInfo>;
    /** One named connection, or undefined. */
    get(name: string): Promise<ConnectionInfo | undefined>;
    /** Removes a named connection (its staged changes, history and mode stay under its name); false when there was none. */
    remove(name: string): Promise<boolean>;
    /** Sets the MCP scope ceiling of a named connection (null: not exposed). */
    setMcpScope(name: string, scope: string | null): Promise<ConnectionInfo>;
    /** The connection used when none is named; undefined: the unnamed one. */
    defaultName(): Promise<string | undefined>;
    /** Makes a named connection the default (undefined: back to the unnamed one). */
    setDefault(name: string | undefined): Promise<void>;
  };
  models: {
    /** The model saved for a profile in the app's Settings; null: none (TOOLROW_MODEL applies). */
    get(profile: string): Promise<SavedModel | null>;
    /** Saves the profile's model (no secret in it: keys are kept by writeModelKey). */
    set(profile: string, setting: ModelSetting): Promise<SavedModel>;
    /** Forgets the profile's model; false when there was none. */
    clear(profile: string): Promise<boolean>;
  };
  conversations: {
    /** The profile's conversations (default profile when omitted), most recently saved first; default 50, at most 1000. */
    list(options?: { profile?: string; limit?: number; offset?: number }): Promise<ConversationSummary[]>;
    /** One conversation with its messages. Throws DataSourceError 'not-found'. */
    get(id: string, profile?: string): Promise<Conversation>;
    /**
     * Creates the conversation or replaces its messages (the whole list, as the chat holds it).
     * The title defaults to the first words of the first user message. Throws 'misuse' for an id
     * that is not 1–128 letters, digits, '_' or '-', or messages that are not UI messages.
     */
    save(conversation: {
      id: string;
      profile?: string;
      messages: readonly ConversationMessage[];
      title?: string;
    }): Promise<ConversationSummary>;
    /** False when there was no such conversation. */
    delete(id: string, profile?: string): Promise<boolean>;
  };
  tokens: {
    /** Creates a token; the plain token is returned once and only its sha-256 is stored. */
    create(options: {
      name: string;
      scope: string;
      expiresAt?: Date | null;
      /** Ask through the client's own user (elicitation) instead of the app's inbox; default false. */
      askViaClient?: boolean;
      /** The connection it is served on, and on no other. */
      connection?: string;
    }): Promise<{ token: string; record: McpToken }>;
    /** Checks a presented bearer token (and stamps lastUsedAt when valid). */
    verify(token: string): Promise<TokenCheck>;
    list(): Promise<McpToken[]>;
    /** Revokes by name; false when no such live token. */
    revoke(name: string): Promise<boolean>;
  };
  /**
   * The OAuth authorization server's records (see oauth-store.ts). Verification is cached and
   * last use is written in batches, like the tokens'; every revocation takes effect at once here.
   */
  oauth: {
    /** Creates or updates a client by id. */
    saveClient(client: Omit<OAuthClient, 'createdAt'>): Promise<OAuthClient>;
    getClient(id: string): Promise<OAuthClient | null>;
    /** Registered clients no user ever approved (no grant), for the registration cap. */
    countUnapprovedClients(): Promise<number>;
    /** Deletes registered clients registered before `before` that no user ever approved. */
    pruneUnapprovedClients(before: Date): Promise<number>;
    /** Records a consent. */
    createGrant(grant: {
      clientId: string;
      scope: string;
      profile: string;
      resource: string;
      actorName: string;
      expiresAt: Date | null;
      askViaClient?: boolean;
    }): Promise<OAuthGrant>;
    /** A one-time authorization code for a grant; returned once, stored as sha-256. */
    issueCode(code: {
      grantId: string;
      redirectUri: string;
      codeChallenge: string;
      expiresAt: Date;
    }): Promise<string>;
    /** Uses a code up. A second use revokes the grant it was issued for. */
    redeemCode(code: string): Promise<OAuthCodeRedemption>;
    /** An access token (expiring at accessExpiresAt, or the grant's end if sooner) and a refresh token. */
    issueTokens(grantId: string, options: { accessExpiresAt: Date }): Promise<OAuthTokenPair>;
    /** Rotates a refresh token: the old one is spent; reusing a spent one revokes the grant. */
    refresh(
      refreshToken: string,
      options: { clientId: string; accessExpiresAt: Date },
    ): Promise<OAuthRefresh>;
    /** Checks a presented access token (cached briefly; last use recorded without a write per call). */
    verifyAccess(token: string): Promise<OAuthAccessCheck>;
    /** RFC 7009: an access token alone, or a refresh token with its whole grant. False when nothing was live. */
    revokeToken(token: string, clientId?: string): Promise<boolean>;
    /** Connected clients (live grants), oldest first; `all` includes revoked and expired ones. */
    listGrants(options?: { all?: boolean }): Promise<OAuthGrant[]>;
    getGrant(id: string): Promise<OAuthGrant | null>;
    /** The grant a token or refresh token belongs to (whatever its state), or null. */
    grantOfToken(token: string): Promise<OAuthGrant | null>;
    /** Disconnects: every token of the grant stops working at once. */
    revokeGrant(id: string, reason?: string): Promise<boolean>;
  };
  /** Writes the remembered last-use times of tokens and grants now (list() and close do it too). */
  flushLastUse(): Promise<void>;
}
