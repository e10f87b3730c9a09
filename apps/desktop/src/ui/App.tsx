// The app: the table bar, the open tabs and the chat beside them. What it holds lives in hooks/
// (the connection's data, the tabs kept on the server, table descriptions, toasts, shortcuts).
import { useCallback, useRef, useState } from 'react';
import { api, type Chip, type PermissionMode, type Row, type RowKey } from './api.ts';
import { ChatPanel } from './ChatPanel.tsx';
import { ConnectionSwitcher } from './Connections.tsx';
import { describeFilter, describeKey, displayTable, formatCount } from './format.ts';
import { useAppData } from './hooks/useAppData.ts';
import { type Overlay, useShortcuts } from './hooks/useShortcuts.ts';
import { useTableInfos } from './hooks/useTableInfos.ts';
import { PANEL_TITLES, type PanelKind, type Tab, useTabs } from './hooks/useTabs.ts';
import { useToasts } from './hooks/useToasts.ts';
import { McpClientsPanel } from './McpClients.tsx';
import { McpInbox } from './McpInbox.tsx';
import { ModelSettingsDialog } from './ModelSettings.tsx';
import { Palette, ShortcutHelp } from './Palette.tsx';
import { AuditPanel, ExportsPanel, StagingPanel, ToolsPanel } from './panels.tsx';
import { RecordView } from './RecordView.tsx';
import { SignedIn } from './SignedIn.tsx';
import { TableView } from './TableView.tsx';
import { Workbench } from './Workbench.tsx';
import { ErrorBox, ProgressBar, Toasts } from './widgets.tsx';

export function App() {
  const { toasts, toast, toastError } = useToasts();
  const {
    status,
    setStatus,
    statusError,
    loadStatus,
    tables,
    emptyTables,
    tablesError,
    loadTables,
    staging,
    maxPerTransaction,
    protection,
    review,
    stagingError,
    loadStaging,
    serverGone,
    jobs,
    setJobs,
    jobsError,
    loadJobs,
  } = useAppData();
  const [dataVersion, setDataVersion] = useState(0);
  const [auditKey, setAuditKey] = useState(0);
  const [chatHidden, setChatHidden] = useState(false);
  const [overlay, setOverlay] = useState<Overlay>(null);
  const chatInput = useRef<HTMLTextAreaElement>(null);

  const onPanelOpened = useCallback(
    (kind: PanelKind) => {
      if (kind === 'audit') setAuditKey((k) => k + 1);
      if (kind === 'staging') loadStaging();
      if (kind === 'exports') loadJobs();
    },
    [loadStaging, loadJobs],
  );
  const {
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
  } = useTabs({ toastError, onPanelOpened });
  const infos = useTableInfos(
    tabs.flatMap((tab) => (tab.kind === 'table' || tab.kind === 'row' ? [tab.table] : [])),
  );
  // Gated calls of MCP clients waiting in the inbox (from the HTTP endpoint or a stdio client).
  const [mcpWaiting, setMcpWaiting] = useState(0);
  const toggleChat = useCallback((hidden?: boolean) => setChatHidden((current) => hidden ?? !current), []);
  useShortcuts({ tabs, focusedId, overlay, setOverlay, toggleChat, chatInput, focus, closeTab });

  // ── Actions ──────────────────────────────────────────────────────────────────────────────
  const afterWrite = useCallback(() => {
    loadStaging();
    setAuditKey((k) => k + 1);
  }, [loadStaging]);

  const stageEdit = useCallback(
    async (table: string, key: RowKey, values: Row, seen: Row) => {
      await api.stageUpdate(table, key, values, seen);
      afterWrite();
      const columns = Object.keys(values).join(', ');
      toast(
        `Staged ${columns} of ${table} ${describeKey(key)}. Review it in Staging before it is committed.`,
      );
    },
    [afterWrite, toast],
  );

  const stageInsert = useCallback(
    async (table: string, rows: Row[]) => {
      await api.stageInsert(table, rows);
      afterWrite();
      toast(
        `Staged ${rows.length === 1 ? 'a new row' : `${rows.length} new rows`} in ${displayTable(table)}. Review it in Staging before it is committed.`,
      );
    },
    [afterWrite, toast],
  );

  const stageDelete = useCallback(
    (table: string, keys: RowKey[]) => {
      api
        .stageDelete(table, keys)
        .then(() => {
          afterWrite();
          setSelection([]);
          toast(
            `Staged the deletion of ${keys.length} row${keys.length === 1 ? '' : 's'} of ${displayTable(table)}.`,
          );
        })
        .catch(toastError);
    },
    [afterWrite, toast, toastError, setSelection],
  );

  const commit = useCallback(
    async (ids?: string[], inParts = false) => {
      try {
        const result = await api.commit(ids, { inParts, ...(review ? { reviewed: review.digest } : {}) });
        const parts = result.parts && result.parts > 1 ? ` in ${result.parts} transactions` : '';
        if (result.conflicts.length === 0) {
          toast(`Committed ${result.committed} change${result.committed === 1 ? '' : 's'}${parts}.`);
          setDataVersion((v) => v + 1);
          loadTables();
        } else if (result.committed > 0) {
          // Parts before the refused one stayed committed, as the confirmation said.
          toast(`Committed ${result.committed} changes${parts}; the next part was refused (marked below).`);
          setDataVersion((v) => v + 1);
        }
        loadStaging();
        return result.conflicts;
      } catch (error) {
        toastError(error);
        // A refused commit (a stale review, another's commit first) shows the listing as it is now.
        loadStaging();
        return [];
      }
    },
    [toast, toastError, loadStaging, loadTables, review],
  );

  const checkStaged = useCallback(async () => (await api.checkStaged()).conflicts, []);

  const discard = useCallback(
    async (ids?: string[]) => {
      try {
        const result = await api.discard(ids);
        toast(`Discarded ${result.discarded} staged change${result.discarded === 1 ? '' : 's'}.`);
        setDataVersion((v) => v + 1);
        loadStaging();
      } catch (error) {
        toastError(error);
      }
    },
    [toast, toastError, loadStaging],
  );

  const startExport = useCallback(
    (body: Parameters<typeof api.startExport>[0]) => {
      api
        .startExport(body)
        .then((job) => {
          setJobs((current) => [job, ...current.filter((other) => other.id !== job.id)]);
          toast(
            `Export started (${job.format.toUpperCase()}). Progress is in the status bar and under Exports.`,
          );
        })
        .catch(toastError);
    },
    [toast, toastError, setJobs],
  );

  const acceptChip = useCallback(
    async (chip: Chip) => {
      const result = await api.acceptChip(chip);
      applyServerState(result.uiState);
      afterWrite();
      loadJobs();
    },
    [applyServerState, afterWrite, loadJobs],
  );

  const setMode = useCallback(
    (mode: PermissionMode) => {
      api
        .setMode(mode)
        .then((result) => setStatus((current) => (current ? { ...current, mode: result.mode } : current)))
        .catch(toastError);
    },
    [toastError, setStatus],
  );

  const onTurnSettled = useCallback(() => {
    api.uiState().then(applyServerState).catch(toastError);
    afterWrite();
    loadJobs();
  }, [applyServerState, afterWrite, loadJobs, toastError]);

  // ── Render ───────────────────────────────────────────────────────────────────────────────
  const runningJob = jobs.find((job) => job.state === 'queued' || job.state === 'running');
  const stagedCount = staging.length;

  const tabTitle = (tab: Tab): { title: string; kind: string } => {
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
  };

  const renderView = (tab: Tab) => {
    switch (tab.kind) {
      case 'table': {
        const info = infos[tab.table];
        return (
          <TableView
            key={tab.id}
            table={tab.table}
            info={info instanceof Error ? undefined : info}
            infoError={info instanceof Error ? info : null}
            filter={tab.filter}
            sort={tab.sort}
            onQueryChange={(filter, sort) => updateTab(tab.id, { filter, sort })}
            selection={selection}
            onSelectionChange={setSelection}
            staged={staging}
            dataVersion={dataVersion}
            onStagedEdit={(key, values, seen) => stageEdit(tab.table, key, values, seen)}
            onStagedDelete={(keys) => stageDelete(tab.table, keys)}
            onStagedInsert={(rows) => stageInsert(tab.table, rows)}
            onOpenRow={(key) => openRow(tab.table, key)}
            onExport={(format) =>
              startExport({ table: tab.table, filter: tab.filter, sort: tab.sort, format })
            }
          />
        );
      }
      case 'row': {
        const info = infos[tab.table];
        return (
          <RecordView
            key={tab.id}
            table={tab.table}
            rowKey={tab.key}
            info={info instanceof Error ? undefined : info}
            staged={staging}
            dataVersion={dataVersion}
            onStagedEdit={(key, values, seen) => stageEdit(tab.table, key, values, seen)}
            onStagedDelete={(keys) => stageDelete(tab.table, keys)}
            onStagedInsert={(rows) => stageInsert(tab.table, rows)}
            onOpenTable={() => openTable(tab.table)}
          />
        );
      }
      case 'workbench':
        return (
          <Workbench
            key={tab.id}
            sql={tab.sql}
            {...(status ? { languages: status.database.languages ?? [status.database.language] } : {})}
            typedValues={status?.database.typedValues === true}
            onSqlChange={(sql) => updateTab(tab.id, { sql })}
            onExport={(sql, format) => startExport({ sql, format })}
          />
        );
      case 'staging':
        return (
          <StagingPanel
            changes={staging}
            error={stagingError}
            onCommit={commit}
            protection={protection}
            {...(review ? { review } : {})}
            onResolve={async (commitId, outcome) => {
              try {
                const { resolved } = await api.resolveCommit(commitId, outcome);
                toast(
                  outcome === 'applied'
                    ? `Recorded commit ${commitId} as applied: ${resolved} change${resolved === 1 ? '' : 's'} left the staging area.`
                    : `Recorded commit ${commitId} as not applied: its changes stay staged.`,
                );
                setDataVersion((v) => v + 1);
              } catch (error) {
                toastError(error);
              }
              loadStaging();
            }}
            {...(maxPerTransaction !== undefined ? { maxPerTransaction } : {})}
            onDiscard={discard}
            onCheck={checkStaged}
            onOpenRow={openRow}
            typedValues={status?.database.typedValues === true}
          />
        );
      case 'exports':
        return <ExportsPanel jobs={jobs} error={jobsError} />;
      case 'audit':
        return <AuditPanel refreshKey={auditKey} />;
      case 'tools':
        return <ToolsPanel />;
      case 'clients':
        return <McpClientsPanel onError={toastError} />;
    }
  };

  return (
    <div className={`app${chatHidden ? ' chat-hidden' : ''}`}>
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Toolrow
        </div>
        <ConnectionSwitcher active={status?.connection} onError={toastError} />
        <SignedIn />
        <span className="meta">
          {status ? `${status.database.engine} · ${status.database.location}` : ''}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn ghost small"
          onClick={() => setOverlay('palette')}
          title="Open a table (Ctrl+P)"
        >
          Open… <kbd>Ctrl</kbd>+<kbd>P</kbd>
        </button>
        <button type="button" className="btn ghost small" onClick={() => openWorkbench()}>
          New query
        </button>
        <button
          type="button"
          className="btn ghost small"
          onClick={() => setOverlay('help')}
          title="Keyboard shortcuts (?)"
        >
          ?
        </button>
        <button
          type="button"
          className="btn ghost small"
          aria-pressed={!chatHidden}
          onClick={() => setChatHidden((hidden) => !hidden)}
          title="Show or hide the agent (Ctrl+.)"
        >
          Agent
        </button>
      </header>

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

      <main className="main">
        <McpInbox onError={toastError} onPending={setMcpWaiting} />
        <div className="tabstrip" role="tablist" aria-label="Open tabs" ref={tabStrip}>
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
        {statusError ? <ErrorBox error={statusError} /> : null}
        {focused ? (
          renderView(focused)
        ) : (
          <div className="view">
            <div className="empty">
              <h2>Open a table to start</h2>
              <p>
                Pick one on the left, press <kbd>Ctrl</kbd>+<kbd>P</kbd>, or ask the agent on the right.
              </p>
              <p className="faint">
                Press <kbd>?</kbd> for keyboard shortcuts.
              </p>
            </div>
          </div>
        )}
      </main>

      {/* Hidden with CSS, not unmounted, so the conversation survives Ctrl+. */}
      <ChatPanel
        status={status}
        mode={status?.mode ?? 'manual'}
        onModeChange={setMode}
        onChip={acceptChip}
        onTurnSettled={onTurnSettled}
        inputRef={chatInput}
      />

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
          onClick={() => setOverlay('model')}
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

      {overlay === 'palette' ? (
        <Palette
          tables={tables ?? []}
          onPick={(pick) => {
            setOverlay(null);
            if (pick.kind === 'table') openTable(pick.id);
            else if (pick.kind === 'panel') openPanel(pick.id as PanelKind);
            else openWorkbench();
          }}
          onClose={() => setOverlay(null)}
        />
      ) : null}
      {overlay === 'help' ? <ShortcutHelp onClose={() => setOverlay(null)} /> : null}
      {overlay === 'model' ? (
        <ModelSettingsDialog onClose={() => setOverlay(null)} onSaved={loadStatus} />
      ) : null}
      <Toasts toasts={toasts} />
    </div>
  );
}
