// What the app shows of the connection: its status, its tables, the staging area and the export
// jobs, each loaded on start and again on demand; export progress is polled while a job runs.
import { useCallback, useEffect, useState } from 'react';
import {
  ApiError,
  type AppStatus,
  api,
  type ChangeProtection,
  type ExportJob,
  type StagedChange,
  type StagingReview,
  type TableSummary,
} from '../api.ts';

/** How often the app asks whether the staging area changed (a tiny request). */
const LIVE_POLL_MS = 2000;

export function useAppData() {
  const [status, setStatus] = useState<AppStatus | null>(null);
  const [statusError, setStatusError] = useState<unknown>(null);
  const [tables, setTables] = useState<TableSummary[] | null>(null);
  const [tablesError, setTablesError] = useState<unknown>(null);
  const [emptyTables, setEmptyTables] = useState<{ notes: string[]; seed: string } | undefined>(undefined);
  const [staging, setStaging] = useState<StagedChange[]>([]);
  const [maxPerTransaction, setMaxPerTransaction] = useState<number | undefined>(undefined);
  const [protection, setProtection] = useState<Record<string, ChangeProtection>>({});
  const [review, setReview] = useState<StagingReview | undefined>(undefined);
  const [stagingError, setStagingError] = useState<unknown>(null);
  const [jobs, setJobs] = useState<ExportJob[]>([]);
  const [jobsError, setJobsError] = useState<unknown>(null);
  // The server stopped answering (the live poll failed): the status bar says so.
  const [serverGone, setServerGone] = useState(false);

  const loadStatus = useCallback(() => {
    api.status().then(setStatus).catch(setStatusError);
  }, []);
  const loadStaging = useCallback(() => {
    api
      .staging()
      .then((result) => {
        setStaging(result.changes);
        setMaxPerTransaction(result.maxPerTransaction);
        setProtection(result.protection ?? {});
        setReview(result.review);
        setStagingError(null);
      })
      .catch(setStagingError);
  }, []);
  const loadJobs = useCallback(() => {
    api
      .exports()
      .then((result) => {
        setJobs(result.jobs);
        setJobsError(null);
      })
      .catch(setJobsError);
  }, []);
  const loadTables = useCallback((fresh = false) => {
    api
      .tables(fresh)
      .then((result) => {
        setTables(result.tables);
        setEmptyTables(result.empty);
        setTablesError(null);
      })
      .catch(setTablesError);
  }, []);

  useEffect(() => {
    loadStatus();
    // A page (re)load reads the catalog again, as ↻ does.
    loadTables(true);
    loadStaging();
    loadJobs();
  }, [loadStatus, loadTables, loadStaging, loadJobs]);

  // Poll export progress while a job runs.
  const running = jobs.some((job) => job.state === 'queued' || job.state === 'running');
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(loadJobs, 600);
    return () => clearInterval(timer);
  }, [running, loadJobs]);

  // Live: the state store is shared (the CLI, MCP clients, other people), so the staging area is
  // polled for a change and read again when it has one; a poll that fails means the server is gone.
  // biome-ignore lint/correctness/useExhaustiveDependencies: loadStaging is stable.
  useEffect(() => {
    let last: string | undefined;
    let live = true;
    const poll = () => {
      if (document.visibilityState === 'hidden') return;
      api.stagingVersion().then(
        ({ version }) => {
          if (!live) return;
          setServerGone(false);
          if (last !== undefined && version !== last) loadStaging();
          last = version;
        },
        (error: unknown) => {
          // A refusal is an answer (a session that ended is handled by the request itself).
          if (live) setServerGone(error instanceof ApiError && error.status === 0);
        },
      );
    };
    poll();
    const timer = setInterval(poll, LIVE_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  return {
    serverGone,
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
    jobs,
    setJobs,
    jobsError,
    loadJobs,
  };
}
