// Toolrow's own state: what the app reads and writes (AppState), assembled from one repository per
// kind of record (repositories/) and the OAuth store.
import type { ConnectionInfo } from './app-types.ts';
import type { OAuthRepository } from './oauth-store.ts';
import type { AttachmentRepository } from './repositories/attachments.ts';
import type { AuditRepository } from './repositories/audit.ts';
import type { ConnectionRepository } from './repositories/connections.ts';
import type { ConversationRepository } from './repositories/conversations.ts';
import type { ExportJobRepository } from './repositories/export-jobs.ts';
import type { HistoryRepository } from './repositories/history.ts';
import type { ModelRepository } from './repositories/models.ts';
import type { ProfileRepository } from './repositories/profiles.ts';
import type { SpecRepository } from './repositories/specs.ts';
import { createTeamPeople, type TeamPeopleRepository } from './repositories/team-people.ts';
import type { TeamSessionRepository } from './repositories/team-sessions.ts';
import type { TokenRepository } from './repositories/tokens.ts';
import type { UiStateRepository } from './repositories/ui-state.ts';

export type { ListOptions } from './repositories/checks.ts';

import { createOAuthStore, writeGrantLastUse } from './oauth-store.ts';
import { createAttachments } from './repositories/attachments.ts';
import { createAudit } from './repositories/audit.ts';
import { createConnections } from './repositories/connections.ts';
import { createConversations } from './repositories/conversations.ts';
import { createExportJobs } from './repositories/export-jobs.ts';
import { createHistory } from './repositories/history.ts';
import { createModels } from './repositories/models.ts';
import { createProfiles } from './repositories/profiles.ts';
import { createSpecs } from './repositories/specs.ts';
import { createTeamSessions } from './repositories/team-sessions.ts';
import { createTokens } from './repositories/tokens.ts';
import { createUiState } from './repositories/ui-state.ts';
import type { StateDb } from './store/state-db.ts';
import { createLastUse, createVerifyCache } from './verify-cache.ts';

/**
 * Typed access to Toolrow's own state (schema toolrow_app). Staging and export jobs have their own
 * engines (DataSource.staging / DataSource.exports) over the same tables.
 */
export interface AppState {
  profiles: ProfileRepository;
  ui: UiStateRepository;
  specs: SpecRepository;
  history: HistoryRepository;
  audit: AuditRepository;
  exportJobs: ExportJobRepository;
  attachments: AttachmentRepository;
  connections: ConnectionRepository;
  models: ModelRepository;
  conversations: ConversationRepository;
  tokens: TokenRepository;
  /**
   * The OAuth authorization server's records (see oauth-store.ts). Verification is cached and
   * last use is written in batches, like the tokens'; every revocation takes effect at once here.
   */
  oauth: OAuthRepository;
  /** Team mode's logins in flight and sessions (every instance on this store shares them). */
  team: TeamSessionRepository & TeamPeopleRepository;
  /** Writes the remembered last-use times of tokens and grants now (list() and close do it too). */
  flushLastUse(): Promise<void>;
}

export interface AppStateOptions {
  /** The connection this process uses, listed as active by connections.list(); none when it opened no data. */
  activeConnection?: Omit<ConnectionInfo, 'active'>;
  /** How long a verified bearer token is trusted without a query (default VERIFY_CACHE_TTL_MS). */
  verifyCacheTtlMs?: number;
}

/** Toolrow's own state over its store: one repository per kind of record (see repositories/). */
export function createAppState(db: StateDb, options: AppStateOptions = {}): AppState {
  const { q } = db;
  // One cache for both kinds of bearer token: any revocation clears it.
  const cache = createVerifyCache<unknown>(options.verifyCacheTtlMs);
  const tokenLastUse = createLastUse<number>(async (stamps) => {
    await q.transaction().execute(async (tx) => {
      for (const [id, at] of stamps) {
        // Never back in time: another process may have written a later use.
        await tx
          .updateTable('mcp_tokens')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
          .execute();
      }
    });
  });
  const grantLastUse = createLastUse<string>((stamps) => writeGrantLastUse(q, stamps));
  const flushLastUse = async () => {
    await Promise.all([tokenLastUse.flush(), grantLastUse.flush()]);
  };
  return {
    flushLastUse,
    oauth: createOAuthStore({ db, cache, lastUse: grantLastUse }),
    profiles: createProfiles(db),
    ui: createUiState(db),
    specs: createSpecs(db),
    history: createHistory(db),
    audit: createAudit(db),
    exportJobs: createExportJobs(db),
    attachments: createAttachments(db),
    connections: createConnections(db, options),
    models: createModels(db),
    conversations: createConversations(db),
    tokens: createTokens(db, { cache, tokenLastUse }),
    team: { ...createTeamSessions(db), ...createTeamPeople(db, () => cache.clear()) },
  };
}
