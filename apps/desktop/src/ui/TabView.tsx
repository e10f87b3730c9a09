// What the focused tab shows: a table, a record, a query, or one of the panels.
import type { RowKey } from './api.ts';
import type { useAppData } from './hooks/useAppData.ts';
import type { DataActions } from './hooks/useDataActions.ts';
import type { useTableInfos } from './hooks/useTableInfos.ts';
import type { Tab, useTabs } from './hooks/useTabs.ts';
import { McpClientsPanel } from './McpClients.tsx';
import { AuditPanel, ExportsPanel, StagingPanel, ToolsPanel } from './panels.tsx';
import { RecordView } from './RecordView.tsx';
import { TableView } from './TableView.tsx';
import { Workbench } from './Workbench.tsx';

export interface TabViewProps {
  tab: Tab;
  data: ReturnType<typeof useAppData>;
  actions: DataActions;
  tabs: Pick<ReturnType<typeof useTabs>, 'updateTab' | 'openRow' | 'openTable'>;
  infos: ReturnType<typeof useTableInfos>;
  selection: RowKey[];
  onSelectionChange: (keys: RowKey[]) => void;
  dataVersion: number;
  auditKey: number;
  onError: (error: unknown) => void;
}

export function TabView({
  tab,
  data,
  actions,
  tabs,
  infos,
  selection,
  onSelectionChange,
  dataVersion,
  auditKey,
  onError,
}: TabViewProps) {
  const { status, staging } = data;
  const typedValues = status?.database.typedValues === true;
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
          onQueryChange={(filter, sort) => tabs.updateTab(tab.id, { filter, sort })}
          selection={selection}
          onSelectionChange={onSelectionChange}
          staged={staging}
          dataVersion={dataVersion}
          onStagedEdit={(key, values, seen) => actions.stageEdit(tab.table, key, values, seen)}
          onStagedDelete={(keys) => actions.stageDelete(tab.table, keys)}
          onStagedInsert={(rows) => actions.stageInsert(tab.table, rows)}
          onOpenRow={(key) => tabs.openRow(tab.table, key)}
          onExport={(format) =>
            actions.startExport({ table: tab.table, filter: tab.filter, sort: tab.sort, format })
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
          onStagedEdit={(key, values, seen) => actions.stageEdit(tab.table, key, values, seen)}
          onStagedDelete={(keys) => actions.stageDelete(tab.table, keys)}
          onStagedInsert={(rows) => actions.stageInsert(tab.table, rows)}
          onOpenTable={() => tabs.openTable(tab.table)}
        />
      );
    }
    case 'workbench':
      return (
        <Workbench
          key={tab.id}
          sql={tab.sql}
          {...(status ? { languages: status.database.languages ?? [status.database.language] } : {})}
          typedValues={typedValues}
          onSqlChange={(sql) => tabs.updateTab(tab.id, { sql })}
          onExport={(sql, format) => actions.startExport({ sql, format })}
        />
      );
    case 'staging':
      return (
        <StagingPanel
          changes={staging}
          error={data.stagingError}
          onCommit={actions.commit}
          protection={data.protection}
          {...(data.review ? { review: data.review } : {})}
          onResolve={actions.resolveCommit}
          {...(data.maxPerTransaction !== undefined ? { maxPerTransaction: data.maxPerTransaction } : {})}
          onDiscard={actions.discard}
          onCheck={actions.checkStaged}
          onOpenRow={tabs.openRow}
          typedValues={typedValues}
        />
      );
    case 'exports':
      return <ExportsPanel jobs={data.jobs} error={data.jobsError} />;
    case 'audit':
      return <AuditPanel refreshKey={auditKey} />;
    case 'tools':
      return <ToolsPanel />;
    case 'clients':
      return <McpClientsPanel onError={onError} />;
  }
}
