// The UI state a profile's desktop and agent share: open tabs, the focused one, the selection.
import { DataSourceError, DEFAULT_PROFILE } from '@toolrow/datasource';
import type { UiState } from '../app-types.ts';
import { date, jsonValue, lockRows, type StateDb } from '../store/state-db.ts';

/** What the store keeps of ui. */
export interface UiStateRepository {
  /** The profile's UI state; empty (no tabs) when never written. */
  get(profile?: string): Promise<UiState>;
  /** Replaces the given fields; returns the new state. A focusedTabId must name an open tab. */
  update(
    profile: string,
    patch: Partial<Pick<UiState, 'tabs' | 'focusedTabId' | 'selection'>>,
  ): Promise<UiState>;
}

function emptyUi(profile: string): UiState {
  return { profile, tabs: [], focusedTabId: null, selection: null, updatedAt: new Date(0) };
}

export function createUiState(db: StateDb): UiStateRepository {
  const { q, dialect } = db;
  return {
    async get(profile = DEFAULT_PROFILE) {
      const row = await q
        .selectFrom('ui_state')
        .selectAll()
        .where('profile', '=', profile)
        .executeTakeFirst();
      if (!row) return emptyUi(profile);
      return {
        profile,
        tabs: jsonValue<UiState['tabs']>(row.tabs),
        focusedTabId: row.focused_tab_id ?? null,
        selection: jsonValue<UiState['selection']>(row.selection) ?? null,
        updatedAt: date(row.updated_at),
      };
    },
    async update(profile, patch) {
      return q.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('ui_state')
          .select(['tabs', 'focused_tab_id', 'selection'])
          .where('profile', '=', profile)
          .$call(lockRows(dialect))
          .executeTakeFirst();
        const tabs = patch.tabs ?? (row ? jsonValue<UiState['tabs']>(row.tabs) : undefined) ?? [];
        if (!Array.isArray(tabs)) throw new DataSourceError('misuse', 'tabs must be an array of tabs.');
        const ids = new Set<string>();
        for (const tab of tabs) {
          if (ids.has(tab.id))
            throw new DataSourceError('misuse', `Two tabs share the id '${tab.id}'; tab ids must be unique.`);
          ids.add(tab.id);
        }
        let focused = patch.focusedTabId !== undefined ? patch.focusedTabId : (row?.focused_tab_id ?? null);
        if (patch.focusedTabId !== undefined && focused !== null && !ids.has(focused)) {
          throw new DataSourceError(
            'misuse',
            `focusedTabId '${focused}' is not an open tab; open tabs: ${[...ids].join(', ') || 'none'}.`,
          );
        }
        // A tab that closed takes focus and selection with it.
        if (focused !== null && !ids.has(focused)) focused = null;
        let selection =
          patch.selection !== undefined
            ? patch.selection
            : ((row ? jsonValue<UiState['selection']>(row.selection) : null) ?? null);
        if (selection && !ids.has(selection.tabId)) selection = null;
        const values = {
          tabs: JSON.stringify(tabs),
          focused_tab_id: focused,
          selection: selection === null ? null : JSON.stringify(selection),
          updated_at: new Date(),
        };
        const written = await tx
          .insertInto('ui_state')
          .values({ profile, ...values })
          .onConflict((oc) => oc.column('profile').doUpdateSet(values))
          .returning('updated_at')
          .executeTakeFirstOrThrow();
        return { profile, tabs, focusedTabId: focused, selection, updatedAt: date(written.updated_at) };
      });
    },
  };
}
