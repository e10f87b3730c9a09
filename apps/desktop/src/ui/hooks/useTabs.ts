// The open tabs, the one in focus and the selection: opened and closed here, and kept on the
// server (the agent reads the active view and the selection from there; its open tools change it).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, type Filter, type RowKey, type SortKey, type UiState, type UiTab } from '../api.ts';
import { keyString } from '../format.ts';

export type PanelKind = 'staging' | 'exports' | 'audit' | 'tools' | 'clients';
export type PanelTab = { id: PanelKind; kind: PanelKind };
export type Tab = UiTab | PanelTab;

export const PANEL_TITLES: Record<PanelKind, string> = {
  staging: 'Staging',
  exports: 'Exports',
  audit: 'Audit log',
  tools: 'Agent tools',
  clients: 'MCP clients',
};

const EMPTY_FILTER: Filter = { combine: 'and', conditions: [] };
export const isPanel = (tab: Tab): tab is PanelTab => tab.kind in PANEL_TITLES;
let tabCounter = 0;
const newTabId = () => `t${Date.now().toString(36)}${(tabCounter++).toString(36)}`;

export function useTabs(options: {
  toastError: (error: unknown) => void;
  /** A panel was opened or focused: what it shows is loaded again. */
  onPanelOpened: (kind: PanelKind) => void;
}) {
  const { toastError, onPanelOpened } = options;
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [selection, setSelection] = useState<RowKey[]>([]);
  const tabStrip = useRef<HTMLDivElement>(null);
  // The saved layout has arrived (or failed to): from then on, changes are saved back.
  const [restored, setRestored] = useState(false);
  // The UI state last read from or written to the server: only a change from it is saved.
  const lastSynced = useRef<string | null>(null);

  /**
   * Shows the saved tabs. On first load (`keepOpened`) the tabs the user opened while they were
   * still loading stay, after the saved ones and in focus: a quick "New query" is not lost.
   */
  const applyServerState = useCallback((state: UiState, keepOpened = false) => {
    lastSynced.current = JSON.stringify({
      tabs: state.tabs,
      focusedTabId: state.focusedTabId,
      selection: state.selection,
    });
    const saved = new Set(state.tabs.map((tab) => tab.id));
    setTabs((current) => [
      ...state.tabs,
      ...current.filter((tab) => isPanel(tab) || (keepOpened && !saved.has(tab.id))),
    ]);
    setFocusedId((current) => (keepOpened && current ? current : (state.focusedTabId ?? current)));
    setSelection(state.selection);
  }, []);

  useEffect(() => {
    api
      .uiState()
      .then((state) => {
        applyServerState(state, true);
        setRestored(true);
      })
      .catch((error: unknown) => {
        setRestored(true);
        toastError(error);
      });
  }, [applyServerState, toastError]);

  const uiState: UiState = useMemo(
    () => ({
      tabs: tabs.filter((tab): tab is UiTab => !isPanel(tab)),
      focusedTabId: focusedId && tabs.some((tab) => tab.id === focusedId && !isPanel(tab)) ? focusedId : null,
      selection,
    }),
    [tabs, focusedId, selection],
  );
  const uiStateKey = JSON.stringify(uiState);
  // biome-ignore lint/correctness/useExhaustiveDependencies: uiStateKey stands for uiState.
  useEffect(() => {
    if (!restored || uiStateKey === lastSynced.current) return;
    const timer = setTimeout(() => {
      lastSynced.current = uiStateKey;
      api.saveUiState(uiState).catch(toastError);
    }, 250);
    return () => clearTimeout(timer);
  }, [uiStateKey, restored]);

  // The tab in focus is always whole in view, however many are open (the strip scrolls sideways).
  // A tab's title grows with its query, so this runs when any tab changes, not only the focus.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the focus or the tabs change.
  useEffect(() => {
    tabStrip.current
      ?.querySelector('[role="tab"][aria-selected="true"]')
      ?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [focusedId, tabs]);

  const focus = useCallback((id: string) => {
    setFocusedId(id);
    setSelection([]);
  }, []);

  const openTable = useCallback(
    (table: string, filter?: Filter, sort?: SortKey[]) => {
      const existing = tabs.find((tab) => tab.kind === 'table' && tab.table === table);
      if (existing && existing.kind === 'table') {
        if (filter || sort) {
          setTabs((current) =>
            current.map((tab) =>
              tab.id === existing.id && tab.kind === 'table'
                ? { ...tab, filter: filter ?? tab.filter, sort: sort ?? tab.sort }
                : tab,
            ),
          );
        }
        focus(existing.id);
        return;
      }
      const tab: UiTab = {
        id: newTabId(),
        kind: 'table',
        table,
        filter: filter ?? EMPTY_FILTER,
        sort: sort ?? [],
      };
      setTabs((current) => [...current, tab]);
      focus(tab.id);
    },
    [tabs, focus],
  );

  const openRow = useCallback(
    (table: string, key: RowKey) => {
      const existing = tabs.find(
        (tab) => tab.kind === 'row' && tab.table === table && keyString(tab.key) === keyString(key),
      );
      if (existing) return focus(existing.id);
      const tab: UiTab = { id: newTabId(), kind: 'row', table, key };
      setTabs((current) => [...current, tab]);
      focus(tab.id);
    },
    [tabs, focus],
  );

  const openWorkbench = useCallback(
    (sql = '') => {
      const tab: UiTab = { id: newTabId(), kind: 'workbench', sql };
      setTabs((current) => [...current, tab]);
      focus(tab.id);
    },
    [focus],
  );

  const openPanel = useCallback(
    (kind: PanelKind) => {
      setTabs((current) =>
        current.some((tab) => tab.id === kind) ? current : [...current, { id: kind, kind }],
      );
      focus(kind);
      onPanelOpened(kind);
    },
    [focus, onPanelOpened],
  );

  const closeTab = useCallback(
    (id: string) => {
      setTabs((current) => {
        const index = current.findIndex((tab) => tab.id === id);
        const next = current.filter((tab) => tab.id !== id);
        if (focusedId === id) {
          const neighbour = next[Math.min(index, next.length - 1)];
          setFocusedId(neighbour ? neighbour.id : null);
          setSelection([]);
        }
        return next;
      });
    },
    [focusedId],
  );

  const updateTab = useCallback((id: string, patch: Partial<UiTab>) => {
    setTabs((current) => current.map((tab) => (tab.id === id ? ({ ...tab, ...patch } as Tab) : tab)));
  }, []);

  const focused = tabs.find((tab) => tab.id === focusedId) ?? null;

  return {
    tabs,
    focusedId,
    focused,
    selection,
    setSelection,
    tabStrip,
    applyServerState,
    focus,
    openTable,
    openRow,
    openWorkbench,
    openPanel,
    closeTab,
    updateTab,
  };
}
