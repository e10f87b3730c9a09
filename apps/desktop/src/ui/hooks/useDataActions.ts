// What the person does to the data from the app: stage edits, inserts and deletes, commit or
// discard them, record how an interrupted commit ended, start exports, accept a chip, change the
// mode. Each says what happened in a toast and reloads what it changed.
import { useCallback } from 'react';
import { api, type Chip, type PermissionMode, type Row, type RowKey, type UiState } from '../api.ts';
import { describeKey, displayTable } from '../format.ts';
import type { useAppData } from './useAppData.ts';

export interface DataActionsOptions {
  data: ReturnType<typeof useAppData>;
  toast: (message: string) => void;
  toastError: (error: unknown) => void;
  setSelection: (keys: RowKey[]) => void;
  applyServerState: (state: UiState) => void;
  /** The rows on screen are stale: grids and records read them again. */
  bumpData: () => void;
  /** The audit log grew: the panel reads it again. */
  bumpAudit: () => void;
}

export function useDataActions(options: DataActionsOptions) {
  const { data, toast, toastError, setSelection, applyServerState, bumpData, bumpAudit } = options;
  const { loadStaging, loadTables, loadJobs, setJobs, setStatus, review } = data;

  const afterWrite = useCallback(() => {
    loadStaging();
    bumpAudit();
  }, [loadStaging, bumpAudit]);

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
          bumpData();
          loadTables();
        } else if (result.committed > 0) {
          // Parts before the refused one stayed committed, as the confirmation said.
          toast(`Committed ${result.committed} changes${parts}; the next part was refused (marked below).`);
          bumpData();
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
    [toast, toastError, loadStaging, loadTables, review, bumpData],
  );

  const checkStaged = useCallback(async () => (await api.checkStaged()).conflicts, []);

  const discard = useCallback(
    async (ids?: string[]) => {
      try {
        const result = await api.discard(ids);
        toast(`Discarded ${result.discarded} staged change${result.discarded === 1 ? '' : 's'}.`);
        bumpData();
        loadStaging();
      } catch (error) {
        toastError(error);
      }
    },
    [toast, toastError, loadStaging, bumpData],
  );

  const resolveCommit = useCallback(
    async (commitId: number, outcome: 'applied' | 'staged') => {
      try {
        const { resolved } = await api.resolveCommit(commitId, outcome);
        toast(
          outcome === 'applied'
            ? `Recorded commit ${commitId} as applied: ${resolved} change${resolved === 1 ? '' : 's'} left the staging area.`
            : `Recorded commit ${commitId} as not applied: its changes stay staged.`,
        );
        bumpData();
      } catch (error) {
        toastError(error);
      }
      loadStaging();
    },
    [toast, toastError, loadStaging, bumpData],
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
      return result.output;
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

  return {
    stageEdit,
    stageInsert,
    stageDelete,
    commit,
    checkStaged,
    discard,
    resolveCommit,
    startExport,
    acceptChip,
    setMode,
    onTurnSettled,
  };
}

export type DataActions = ReturnType<typeof useDataActions>;
