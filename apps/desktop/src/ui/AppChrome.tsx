// The frame around the tabs: the top bar, the table list and panels on the left, the tab strip,
// and the status bar. Each shows what App hands it and calls back; none holds state of its own.
import type { RefObject } from 'react';
import type { AppStatus, ExportJob, TableSummary } from './api.ts';
import { ConnectionSwitcher } from './Connections.tsx';
import { describeFilter, describeKey, displayTable, formatCount } from './format.ts';
import { PANEL_TITLES, type PanelKind, type Tab } from './hooks/useTabs.ts';
import { SignedIn } from './SignedIn.tsx';
import { ErrorBox, ProgressBar } from './widgets.tsx';

export function TopBar({
  status,
  chatHidden,
  onError,
  onPalette,
  onNewQuery,
  onHelp,
  onToggleChat,
}: {
  status: AppStatus | null;
  chatHidden: boolean;
  onError: (error: unknown) => void;
  onPalette: () => void;
  onNewQuery: () => void;
  onHelp: () => void;
  onToggleChat: () => void;
}) {
  return (
    <header className="topbar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        Toolrow
      </div>
      <ConnectionSwitcher active={status?.connection} onError={onError} />
      <SignedIn />
      <span className="meta">{status ? `${status.database.engine} · ${status.database.location}` : ''}</span>
      <span className="spacer" />
      <button type="button" className="btn ghost small" onClick={onPalette} title="Open a table (Ctrl+P)">
        Open… <kbd>Ctrl</kbd>+<kbd>P</kbd>
      </button>
      <button type="button" className="btn ghost small" onClick={onNewQuery}>
        New query
      </button>
      <button type="button" className="btn ghost small" onClick={onHelp} title="Keyboard shortcuts (?)">
        ?
      </button>
      <button
        type="button"
        className="btn ghost small"
        aria-pressed={!chatHidden}
        onClick={onToggleChat}
        title="Show or hide the agent (Ctrl+.)"
      >
        Agent
      </button>
    </header>
  );
}

export function TablesNav({
  status,
  tables,
  tablesError,
  emptyTables,
  focused,
  focusedId,
  stagedCount,
  runningJob,
  loadTables,
  openTable,
  openPanel,
}: {
  status: AppStatus | null;
  tables: TableSummary[] | null;
  tablesError: unknown;
  emptyTables: { notes: string[]; seed: string } | undefined;
  focused: Tab | null;
  focusedId: string | null;
  stagedCount: number;
  runningJob: ExportJob | undefined;
  loadTables: (fresh?: boolean) => void;
  openTable: (table: string) => void;
  openPanel: (kind: PanelKind) => void;
}) {
  return (
    <nav className="nav" aria-label="Tables and panels">
      <div className="nav-section">
        <span>Tables</span>
        <button
          type="button"
          className="btn small ghost"
          onClick={() => loadTables(true)}
          title="Read the table list again from the database"
        >
          ↻
        </button>
      </div>
      <div className="nav-list">
        {tablesError ? <ErrorBox error={tablesError} /> : null}
        {tables === null && !tablesError ? (
          <div className="faint" style={{ padding: 8 }}>
            Loading…
          </div>
        ) : null}
        {tables?.length === 0 ? (
          <div className="faint empty-tables" data-testid="empty-tables" style={{ padding: 8 }}>
            <p>This connection lists no tables.</p>
            {emptyTables?.notes.map((note) => (
              <p key={note}>{note}</p>
            ))}
            {emptyTables ? (
              <p>
                To put the sample shop in this connection: <code>{emptyTables.seed}</code>
              </p>
            ) : null}
          </div>
        ) : null}
        {tables?.map((table) => {
          const active = focused?.kind === 'table' && focused.table === table.id;
          return (
            <button
              key={table.id}
              type="button"
              className={`nav-item${active ? ' active' : ''}`}
              onClick={() => openTable(table.id)}
              title={
                table.kind === 'view'
                  ? `${table.schema}.${table.name}: a view (read-only), ${table.columnCount} columns`
                  : `${table.schema}.${table.name}: ~${formatCount(table.rowEstimate)} rows, ${table.columnCount} columns`
              }
            >
              <span className="name">{displayTable(table.id)}</span>
              {table.kind === 'view' ? (
                <span className="count" data-testid="view-badge">
                  view
                </span>
              ) : (
                <span className="count">{formatCount(table.rowEstimate)}</span>
              )}
            </button>
          );
        })}
      </div>
      <div className="nav-footer">
        {(
          [
            'staging',
            'exports',
            'audit',
            'tools',
            ...(status?.mcp.enabled ? (['clients'] as const) : []),
          ] as const
        ).map((kind) => (
          <button
            key={kind}
            type="button"
            className={`nav-item${focusedId === kind ? ' active' : ''}`}
            onClick={() => openPanel(kind)}
          >
            <span className="name">{PANEL_TITLES[kind]}</span>
            {kind === 'staging' && stagedCount > 0 ? (
              <span className="badge gated" data-testid="staged-count">
                {stagedCount}
              </span>
            ) : null}
            {kind === 'exports' && runningJob ? <span className="badge accent">running</span> : null}
          </button>
        ))}
      </div>
    </nav>
  );
}

/** A tab's title and the kind its chip names ('table', 'record', 'sql'; none for a panel). */
export function tabTitle(tab: Tab): { title: string; kind: string } {
  switch (tab.kind) {
    case 'table': {
      const filter = describeFilter(tab.filter);
      return {
        title: filter ? `${displayTable(tab.table)} · ${filter}` : displayTable(tab.table),
        kind: 'table',
      };
    }
    case 'row':
      return { title: `${displayTable(tab.table)} ${describeKey(tab.key)}`, kind: 'record' };
    case 'workbench':
      return { title: tab.sql.trim().split('\n')[0]?.slice(0, 40) || 'New query', kind: 'sql' };
    default:
      return { title: PANEL_TITLES[tab.kind], kind: '' };
  }
}

export function TabStrip({
  tabs,
  focusedId,
  stripRef,
  focus,
  closeTab,
}: {
  tabs: Tab[];
  focusedId: string | null;
  stripRef: RefObject<HTMLDivElement | null>;
  focus: (id: string) => void;
  closeTab: (id: string) => void;
}) {
  return (
    <div className="tabstrip" role="tablist" aria-label="Open tabs" ref={stripRef}>
      {tabs.map((tab, index) => {
        const { title, kind } = tabTitle(tab);
        return (
          <div
            key={tab.id}
            className="tab"
            role="tab"
            tabIndex={0}
            aria-selected={tab.id === focusedId}
            title={`${title}${index < 9 ? ` (Alt+${index + 1})` : ''}`}
            onClick={() => focus(tab.id)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ' ') focus(tab.id);
            }}
            onAuxClick={(event) => {
              if (event.button === 1) closeTab(tab.id);
            }}
          >
            {kind ? <span className="tab-kind">{kind}</span> : null}
            <span className="tab-title">{title}</span>
            <button
              type="button"
              className="close"
              aria-label={`Close ${title}`}
              onClick={(event) => {
                event.stopPropagation();
                closeTab(tab.id);
              }}
            >
              ×
            </button>
          </div>
        );
      })}
    </div>
  );
}

export function StatusBar({
  status,
  serverGone,
  mcpWaiting,
  runningJob,
  stagedCount,
  onModel,
  openPanel,
}: {
  status: AppStatus | null;
  serverGone: boolean;
  mcpWaiting: number;
  runningJob: ExportJob | undefined;
  stagedCount: number;
  onModel: () => void;
  openPanel: (kind: PanelKind) => void;
}) {
  return (
    <footer className="statusbar">
      {serverGone ? (
        <span data-testid="server-gone" title="Start it again (npm start), then reload this page">
          <span className="dot danger" />
          server stopped: nothing is saved until it runs again
        </span>
      ) : (
        <span>
          <span className={`dot ${status ? 'ok' : ''}`} />
          {status ? status.database.engine : 'connecting…'}
        </span>
      )}
      <button
        type="button"
        className="statusbar-button"
        title={status?.model.hint ?? 'Model settings'}
        onClick={onModel}
      >
        <span className={`dot ${status?.model.configured ? 'ok' : 'warn'}`} />
        {status?.model.configured ? `model ${status.model.id}` : 'no model: pick one'}
      </button>
      <span
        data-testid="mcp-status"
        title={
          status?.mcp.enabled
            ? status.mcp.url
            : 'The /mcp endpoint is off (TOOLROW_MCP=1 npm start serves it); toolrow mcp --stdio clients are served through the app'
        }
      >
        MCP {status?.mcp.enabled ? `on · ${status.mcp.url}` : 'over HTTP off · stdio on'}
        {mcpWaiting > 0 ? ` · ${mcpWaiting} waiting for you` : ''}
      </span>
      <span>
        mode{' '}
        {status
          ? status.mode === 'full-auto'
            ? 'Full Auto'
            : status.mode === 'auto'
              ? 'Auto'
              : 'Manual'
          : ''}
      </span>
      <span className="spacer" />
      {runningJob ? (
        <span
          style={{ display: 'flex', alignItems: 'center', gap: 8, minWidth: 260 }}
          data-testid="export-progress"
        >
          export {runningJob.source}
          <ProgressBar done={runningJob.rowsDone} total={runningJob.rowsEstimate} label="Export progress" />
          <span className="num">{formatCount(runningJob.rowsDone)}</span>
        </span>
      ) : null}
      {/* biome-ignore lint/a11y/useValidAnchor: it navigates inside the app. */}
      <a
        href="#"
        onClick={(event) => {
          event.preventDefault();
          openPanel('staging');
        }}
      >
        {stagedCount} staged
      </a>
    </footer>
  );
}
