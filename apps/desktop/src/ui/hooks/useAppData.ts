// What the app shows of the connection: its status, its tables, the staging area and the export
// jobs, each loaded on start and again on demand; export progress is polled while a job runs.
import { useCallback, useEffect, useState } from 'react';
import {
  type AppStatus,
  api,
  type ChangeProtection,
  type ExportJob,
  type StagedChange,
  type StagingReview,
  type TableSummary,
} from '../api.ts';

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
  const loadTables = useCallback(() => {
    api
      .tables()
      .then((result) => {
        setTables(result.tables);
        setEmptyTables(result.empty);
        setTablesError(null);
      })
      .catch(setTablesError);
  }, []);

  useEffect(() => {
    loadStatus();
    loadTables();
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

  return {
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
