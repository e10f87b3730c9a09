// The app: the table bar, the open tabs and the chat beside them. What it holds lives in hooks/
// (the connection's data, the tabs kept on the server, table descriptions, toasts, shortcuts, what
// the person does to the data); the frame around the tabs is AppChrome, the focused tab TabView.
import { useCallback, useRef, useState } from 'react';
import { StatusBar, TablesNav, TabStrip, TopBar } from './AppChrome.tsx';
import { ChatPanel } from './ChatPanel.tsx';
import { useAppData } from './hooks/useAppData.ts';
import { useDataActions } from './hooks/useDataActions.ts';
import { type Overlay, useShortcuts } from './hooks/useShortcuts.ts';
import { useTableInfos } from './hooks/useTableInfos.ts';
import { type PanelKind, useTabs } from './hooks/useTabs.ts';
import { useToasts } from './hooks/useToasts.ts';
import { McpInbox } from './McpInbox.tsx';
import { ModelSettingsDialog } from './ModelSettings.tsx';
import { Palette, ShortcutHelp } from './Palette.tsx';
import { TabView } from './TabView.tsx';
import { ErrorBox, Toasts } from './widgets.tsx';

export function App() {
  const { toasts, toast, toastError } = useToasts();
  const data = useAppData();
  const { status, statusError, tables, staging, jobs, loadStatus, loadStaging, loadJobs, loadTables } = data;
  const [dataVersion, setDataVersion] = useState(0);
  const [auditKey, setAuditKey] = useState(0);
  const [chatHidden, setChatHidden] = useState(false);
  const [overlay, setOverlay] = useState<Overlay>(null);
  const chatInput = useRef<HTMLTextAreaElement>(null);
  const bumpData = useCallback(() => setDataVersion((v) => v + 1), []);
  const bumpAudit = useCallback(() => setAuditKey((k) => k + 1), []);

  const onPanelOpened = useCallback(
    (kind: PanelKind) => {
      if (kind === 'audit') bumpAudit();
      if (kind === 'staging') loadStaging();
      if (kind === 'exports') loadJobs();
    },
    [loadStaging, loadJobs, bumpAudit],
  );
  const tabState = useTabs({ toastError, onPanelOpened });
  const {
    tabs,
    focusedId,
    focused,
    selection,
    setSelection,
    focus,
    openTable,
    openWorkbench,
    openPanel,
    closeTab,
  } = tabState;
  const infos = useTableInfos(
    tabs.flatMap((tab) => (tab.kind === 'table' || tab.kind === 'row' ? [tab.table] : [])),
  );
  const actions = useDataActions({
    data,
    toast,
    toastError,
    setSelection,
    applyServerState: tabState.applyServerState,
    bumpData,
    bumpAudit,
  });
  // Gated calls of MCP clients waiting in the inbox (from the HTTP endpoint or a stdio client).
  const [mcpWaiting, setMcpWaiting] = useState(0);
  const toggleChat = useCallback((hidden?: boolean) => setChatHidden((current) => hidden ?? !current), []);
  useShortcuts({ tabs, focusedId, overlay, setOverlay, toggleChat, chatInput, focus, closeTab });

  const runningJob = jobs.find((job) => job.state === 'queued' || job.state === 'running');
  const stagedCount = staging.length;

  return (
    <div className={`app${chatHidden ? ' chat-hidden' : ''}`}>
      <TopBar
        status={status}
        chatHidden={chatHidden}
        onError={toastError}
        onPalette={() => setOverlay('palette')}
        onNewQuery={() => openWorkbench()}
        onHelp={() => setOverlay('help')}
        onToggleChat={() => setChatHidden((hidden) => !hidden)}
      />
      <TablesNav
        status={status}
        tables={tables}
        tablesError={data.tablesError}
        emptyTables={data.emptyTables}
        focused={focused}
        focusedId={focusedId}
        stagedCount={stagedCount}
        runningJob={runningJob}
        loadTables={loadTables}
        openTable={openTable}
        openPanel={openPanel}
      />

      <main className="main">
        <McpInbox onError={toastError} onPending={setMcpWaiting} />
        <TabStrip
          tabs={tabs}
          focusedId={focusedId}
          stripRef={tabState.tabStrip}
          focus={focus}
          closeTab={closeTab}
        />
        {statusError ? <ErrorBox error={statusError} /> : null}
        {focused ? (
          <TabView
            tab={focused}
            data={data}
            actions={actions}
            tabs={tabState}
            infos={infos}
            selection={selection}
            onSelectionChange={setSelection}
            dataVersion={dataVersion}
            auditKey={auditKey}
            onError={toastError}
          />
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
        onModeChange={actions.setMode}
        onChip={actions.acceptChip}
        onOpenSql={openWorkbench}
        onTurnSettled={actions.onTurnSettled}
        inputRef={chatInput}
      />

      <StatusBar
        status={status}
        serverGone={data.serverGone}
        mcpWaiting={mcpWaiting}
        runningJob={runningJob}
        stagedCount={stagedCount}
        onModel={() => setOverlay('model')}
        openPanel={openPanel}
      />

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
