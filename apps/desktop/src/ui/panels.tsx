import { CATALOG_ROWS } from '@toolrow/catalog';
import { useEffect, useMemo, useState } from 'react';
import {
  type AuditEntry,
  api,
  type ChangeProtection,
  type CommitConflict,
  type EvalLatest,
  type ExportJob,
  type RowKey,
  type StagedChange,
  type StagingReview,
} from './api.ts';
import { describeKey, displayTable, formatAgo, formatCount, formatTyped } from './format.ts';
import { mayDiscard } from './permissions.ts';
import { ErrorBox, FormDialog, ProgressBar, ToolBadges, When } from './widgets.tsx';

// ── Staging ─────────────────────────────────────────────────────────────────────────────────

export interface StagingPanelProps {
  changes: StagedChange[];
  error: unknown;
  onCommit: (ids?: string[], inParts?: boolean) => Promise<CommitConflict[]>;
  /** The most changes one transaction takes on this connection (DynamoDB: 100); absent: any number. */
  maxPerTransaction?: number;
  /** What protects each table's items between the last check and the write, as the engine says. */
  protection?: Record<string, ChangeProtection>;
  /** Records what a commit whose outcome could not be told turned out to be. */
  onResolve?: (commit: number, outcome: 'applied' | 'staged') => Promise<void>;
  onDiscard: (ids?: string[]) => Promise<void>;
  /** Which staged changes a commit would refuse now (read-only). */
  onCheck: () => Promise<CommitConflict[]>;
  onOpenRow: (table: string, key: Record<string, unknown>) => void;
  /** The engine has the typedValues feature: values come in its tagged form ({ N: "1.50" } is 1.50). */
  typedValues?: boolean;
  /** Team mode: who reviews, and whether they may commit what is listed (four eyes). */
  review?: StagingReview;
}

/** Who staged a change: its person (team mode), and through what when not by hand. */
function stagedByText(change: StagedChange): string {
  if (!change.person) return change.stagedBy;
  return change.stagedBy === 'user' ? change.person : `${change.person} (via ${change.stagedBy})`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What is stale about a card, in words, with the values as they are now. */
function staleText(conflict: CommitConflict, change: StagedChange, typedValues: boolean): string {
  if (!conflict.current) return 'This row no longer exists.';
  if (change.kind === 'insert') return 'A row with this key already exists.';
  const typeOf = (column: string) => change.changes.find((each) => each.column === column)?.type;
  const now = conflict.changedColumns.map((column) => {
    const value = conflict.current?.[column];
    return `${column} is now ${value === undefined ? '(absent)' : formatTyped(value, typeOf(column), typedValues)}`;
  });
  return `Changed since it was staged${now.length > 0 ? `: ${now.join('; ')}` : ''}.`;
}

/** The review before anything touches a table: a readable before → after per column (per attribute). */
export function StagingPanel({
  changes,
  error,
  onCommit,
  onDiscard,
  onCheck,
  onOpenRow,
  typedValues = false,
  maxPerTransaction,
  protection = {},
  onResolve,
  review,
}: StagingPanelProps) {
  // Team mode: a change of one's own is committed by another approver; a viewer or analyst commits none.
  const mayCommit = (change?: StagedChange) =>
    !review || (change ? review.approver && change.person !== review.you : review.mayCommit);
  const uncertain = useMemo(() => {
    const commits = new Map<number, StagedChange[]>();
    for (const change of changes)
      if (change.uncertainCommit)
        commits.set(change.uncertainCommit, [...(commits.get(change.uncertainCommit) ?? []), change]);
    return [...commits.entries()];
  }, [changes]);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const [stale, setStale] = useState<Map<string, CommitConflict>>(new Map());
  const [confirming, setConfirming] = useState(false);
  const byTable = useMemo(() => {
    const groups = new Map<string, StagedChange[]>();
    for (const change of changes) groups.set(change.table, [...(groups.get(change.table) ?? []), change]);
    return [...groups.entries()];
  }, [changes]);

  const showConflicts = (conflicts: CommitConflict[]) =>
    setStale(new Map(conflicts.map((conflict) => [conflict.id, conflict])));

  // Stale cards are found when the review opens and whenever what is staged changes, not at commit.
  const ids = changes.map((change) => change.id).join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-check when the staged ids change.
  useEffect(() => {
    if (ids === '') {
      setStale(new Map());
      return;
    }
    let live = true;
    onCheck().then(
      (conflicts) => {
        if (live) showConflicts(conflicts);
      },
      () => {}, // the commit checks again; a failed check only leaves the cards unflagged
    );
    return () => {
      live = false;
    };
  }, [ids]);

  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } finally {
      setBusy(false);
    }
  };
  // More than one transaction takes: committed in parts, each all or nothing, once the user says so.
  const parts =
    maxPerTransaction !== undefined && changes.length > maxPerTransaction
      ? Math.ceil(changes.length / maxPerTransaction)
      : 1;
  const commit = (only?: string[], inParts = false) =>
    act(async () => {
      const conflicts = await onCommit(only, inParts);
      setFailed(conflicts.length > 0);
      if (conflicts.length > 0) showConflicts(conflicts);
    });
  const staleCount = changes.filter((change) => stale.has(change.id)).length;
  // Team mode: the first change this person may not discard says why Discard all is off.
  const discardAll = changes.map((change) => mayDiscard(change)).find((each) => !each.ok);

  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">Staged changes</span>
        <span className="muted">
          {changes.length === 0
            ? 'nothing staged'
            : `${plural(changes.length, 'change')} in ${plural(byTable.length, 'table')}`}
        </span>
        {staleCount > 0 ? (
          <span className="stale-count" data-testid="stale-count">
            {staleCount} stale
          </span>
        ) : null}
        <span className="spacer" />
        <button
          type="button"
          className="btn danger"
          disabled={busy || changes.length === 0 || discardAll !== undefined}
          title={discardAll?.why}
          onClick={() => void act(() => onDiscard())}
        >
          Discard all
        </button>
        <button
          type="button"
          className="btn primary"
          disabled={busy || changes.length === 0 || !mayCommit()}
          onClick={() => setConfirming(true)}
          title={review?.why ?? 'Apply every staged change in one transaction'}
        >
          Commit all
        </button>
      </div>
      {review && changes.length > 0 ? (
        <p
          className="faint review-note"
          data-testid="review-note"
          style={{ margin: '0 0 8px', fontSize: 12 }}
        >
          {review.mayCommit
            ? `You review as ${review.you}: committing approves exactly these ${plural(changes.length, 'change')}; a change staged after this review voids it.`
            : `${review.why ?? ''} Each change names who staged it; an approver who did not stage it commits it.`}
        </p>
      ) : null}
      {confirming ? (
        <CommitConfirm
          changes={changes.length}
          tables={byTable.map(([table]) => table)}
          parts={parts}
          maxPerTransaction={maxPerTransaction}
          staleCount={staleCount}
          busy={busy}
          onCancel={() => setConfirming(false)}
          onCommit={() => {
            setConfirming(false);
            void commit(undefined, parts > 1);
          }}
        />
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      {uncertain.map(([commitId, group]) => (
        <UncertainCommit
          key={commitId}
          commitId={commitId}
          changes={group.length}
          busy={busy || !onResolve}
          onResolve={(outcome) => void act(() => onResolve!(commitId, outcome))}
        />
      ))}
      {failed && staleCount > 0 ? (
        <div className="error-box" role="alert">
          Nothing was committed: {plural(staleCount, 'row')} changed since{' '}
          {staleCount === 1 ? 'it was' : 'they were'} staged (marked below).
          <div className="hint">Discard those changes and stage them again against the current rows.</div>
        </div>
      ) : null}
      {changes.length === 0 ? (
        <NothingStaged />
      ) : (
        <div className="list">
          {byTable.map(([table, group]) => (
            <section key={table} aria-label={`Staged changes in ${table}`}>
              <h3 className="muted" style={{ margin: '4px 0 6px', fontSize: 12 }}>
                {displayTable(table)}
              </h3>
              {protection[table] ? <TableProtection protection={protection[table]!} /> : null}
              {group.map((change) => (
                <StagedChangeCard
                  key={change.id}
                  change={change}
                  conflict={stale.get(change.id)}
                  busy={busy}
                  mayCommit={mayCommit(change)}
                  notCommitted={
                    change.person === review?.you
                      ? 'Yours: another approver commits it (four eyes).'
                      : review?.why
                  }
                  typedValues={typedValues}
                  onOpenRow={onOpenRow}
                  onDiscard={() => void act(() => onDiscard([change.id]))}
                  onCommit={() => void commit([change.id])}
                />
              ))}
            </section>
          ))}
        </div>
      )}
    </div>
  );
}

function NothingStaged() {
  return (
    <div className="empty">
      <h2>Nothing staged</h2>
      <p>
        Edits you make in a table (double-click a cell) and writes the agent proposes land here first.
        <br />
        Nothing touches a table until you commit.
      </p>
    </div>
  );
}

/** What protects a table's rows between the last check and the write. */
function TableProtection({ protection }: { protection: NonNullable<ChangeProtection> }) {
  return (
    <p className="faint" data-testid="table-protection" style={{ margin: '0 0 6px', fontSize: 12 }}>
      {protection.kind === 'version'
        ? `Protected by its version attribute ${protection.attribute}. `
        : 'Checked whole just before the commit. '}
      {protection.detail}
    </p>
  );
}

/** A commit that stopped before the database could tell its outcome: the person says what they found. */
function UncertainCommit({
  commitId,
  changes,
  busy,
  onResolve,
}: {
  commitId: number;
  changes: number;
  busy: boolean;
  onResolve: (outcome: 'applied' | 'staged') => void;
}) {
  return (
    <div className="error-box" role="alert" data-testid="uncertain-commit">
      Commit {commitId} ({plural(changes, 'change')}) stopped before the database could tell whether it was
      applied: its changes are staged again (marked ? below). Look at the items, then say what you found.
      Committing them again is safe: a change already applied is refused as changed.
      <div className="toolbar">
        <button type="button" className="btn small" disabled={busy} onClick={() => onResolve('applied')}>
          It was applied
        </button>
        <button type="button" className="btn small" disabled={busy} onClick={() => onResolve('staged')}>
          It was not: keep them staged
        </button>
      </div>
    </div>
  );
}

/** Commit all, confirmed: what is written, in how many transactions, and what a stale change does. */
function CommitConfirm({
  changes,
  tables,
  parts,
  maxPerTransaction,
  staleCount,
  busy,
  onCancel,
  onCommit,
}: {
  changes: number;
  tables: string[];
  parts: number;
  maxPerTransaction: number | undefined;
  staleCount: number;
  busy: boolean;
  onCancel: () => void;
  onCommit: () => void;
}) {
  return (
    <FormDialog label="Commit all" title="Commit all staged changes?" onClose={onCancel}>
      {parts > 1 ? (
        <p data-testid="commit-parts">
          {plural(changes, 'change')} to {tables.map((table) => displayTable(table)).join(', ')}: this
          connection applies at most {maxPerTransaction} in one transaction, so they are written in {parts}{' '}
          transactions of at most {maxPerTransaction}, in the order they were staged. Each is all or nothing;
          if one is refused (a row changed since it was staged), the ones before it stay committed and the
          rest stay staged. This cannot be undone from Toolrow.
        </p>
      ) : (
        <p>
          {plural(changes, 'change')} to {tables.map((table) => displayTable(table)).join(', ')} will be
          written in one transaction. This cannot be undone from Toolrow.
        </p>
      )}
      {staleCount > 0 ? (
        <div className="error-box" role="alert">
          {plural(staleCount, 'change')} {staleCount === 1 ? 'is' : 'are'} stale (marked below): the commit
          would be refused and nothing applied. Discard {staleCount === 1 ? 'it' : 'them'} and stage again
          against the current rows, or commit the other cards one by one.
        </div>
      ) : null}
      <div className="toolbar">
        <span className="spacer" />
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn primary" disabled={busy} onClick={onCommit}>
          {parts > 1 ? `Commit in ${parts} transactions` : `Commit ${plural(changes, 'change')}`}
        </button>
      </div>
    </FormDialog>
  );
}

/** One staged change: what it does to which row, who staged it, the diff, and Discard and Commit. */
function StagedChangeCard({
  change,
  conflict,
  busy,
  mayCommit,
  notCommitted,
  typedValues,
  onOpenRow,
  onDiscard,
  onCommit,
}: {
  change: StagedChange;
  conflict: CommitConflict | undefined;
  busy: boolean;
  mayCommit: boolean;
  /** Why this person may not commit it (team mode). */
  notCommitted: string | undefined;
  typedValues: boolean;
  onOpenRow: (table: string, key: RowKey) => void;
  onDiscard: () => void;
  onCommit: () => void;
}) {
  return (
    <article
      className={conflict ? 'change stale' : 'change'}
      data-testid="staged-change"
      data-stale={conflict ? 'true' : undefined}
    >
      <div className="change-head">
        <strong className={`kind-${change.kind}`}>{change.kind}</strong>
        {/* biome-ignore lint/a11y/useValidAnchor: it navigates inside the app. */}
        <a
          href="#"
          className="key"
          onClick={(event) => {
            event.preventDefault();
            if (change.key) onOpenRow(change.table, change.key);
          }}
        >
          {describeKey(change.key)}
        </a>
        <span className="faint" data-testid="staged-by">
          by {stagedByText(change)} · <When iso={change.stagedAt} /> ·{' '}
          <span data-testid="change-id" title="The change's number, as errors and the CLI name it">
            #{change.id}
          </span>
        </span>
        {change.uncertainCommit ? (
          <span
            className="stale-count"
            title={`Part of commit ${change.uncertainCommit}, whose outcome could not be told`}
          >
            ? commit {change.uncertainCommit}
          </span>
        ) : null}
        <span style={{ flex: 1 }} />
        <button
          type="button"
          className="btn small ghost"
          disabled={busy || !mayDiscard(change).ok}
          title={mayDiscard(change).why}
          onClick={onDiscard}
        >
          Discard
        </button>
        <button
          type="button"
          className="btn small"
          disabled={busy || !mayCommit}
          title={mayCommit ? undefined : notCommitted}
          onClick={onCommit}
        >
          Commit
        </button>
      </div>
      {conflict ? (
        <div className="stale-note" data-testid="stale-note">
          {staleText(conflict, change, typedValues)}
        </div>
      ) : null}
      <table className="diff">
        <tbody>
          {change.changes.map((c) => (
            <tr key={c.column}>
              <td className="col">{c.column}</td>
              {change.kind === 'update' ? (
                <>
                  <td className="before">
                    {c.before === undefined ? (
                      <i className="faint">(absent)</i>
                    ) : (
                      formatTyped(c.before, c.type, typedValues)
                    )}
                  </td>
                  <td className="arrow">→</td>
                  <td className="after">
                    {c.after === undefined ? (
                      <i className="faint">(removed)</i>
                    ) : (
                      formatTyped(c.after, c.type, typedValues)
                    )}
                  </td>
                </>
              ) : (
                // A whole row comes or goes: its values once, struck out when it goes.
                <td colSpan={3} className={change.kind === 'delete' ? 'before' : 'after'}>
                  {formatTyped(change.kind === 'delete' ? c.before : c.after, c.type, typedValues)}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}

// ── Exports ─────────────────────────────────────────────────────────────────────────────────

/** Stops a running export; the job list's next poll shows it cancelled. */
function CancelExport({ id, source }: { id: string; source: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button"
        className="btn small"
        disabled={busy}
        aria-label={`Cancel the export of ${source}`}
        onClick={() => {
          setBusy(true);
          api.cancelExport(id).then(
            () => setBusy(false),
            (cause: unknown) => {
              setBusy(false);
              setError(cause);
            },
          );
        }}
      >
        {busy ? 'Cancelling…' : 'Cancel'}
      </button>
      {error ? <ErrorBox error={error} /> : null}
    </>
  );
}

export function ExportsPanel({ jobs, error }: { jobs: ExportJob[]; error: unknown }) {
  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">Exports</span>
        <span className="muted">files are written under the exports folder of your data directory</span>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {jobs.length === 0 ? (
        <div className="empty">
          <h2>No exports yet</h2>
          <p>Use Export in a table's toolbar, or ask the agent to export something.</p>
        </div>
      ) : (
        <div className="list" style={{ padding: 0 }}>
          <table className="dtable">
            <thead>
              <tr>
                <th>Source</th>
                <th>Format</th>
                <th style={{ width: '34%' }}>Progress</th>
                <th>State</th>
                <th>Started</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.id} data-testid="export-job">
                  <td className="mono">{job.source}</td>
                  <td>{job.format.toUpperCase()}</td>
                  <td>
                    <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                      <ProgressBar
                        done={job.rowsDone}
                        total={job.state === 'done' ? job.rowsDone || 1 : job.rowsEstimate}
                        label={`Export ${job.source}`}
                      />
                      <span className="num muted">
                        {formatCount(job.rowsDone)}
                        {job.rowsEstimate && job.state !== 'done'
                          ? ` / ~${formatCount(job.rowsEstimate)}`
                          : ''}
                      </span>
                    </div>
                  </td>
                  <td>
                    <span
                      className={`badge ${job.state === 'done' ? 'ok' : job.state === 'failed' ? 'danger' : 'accent'}`}
                    >
                      {job.state}
                    </span>
                    {job.error ? <div className="muted">{job.error}</div> : null}
                  </td>
                  <td className="muted">
                    <When iso={job.createdAt} />
                  </td>
                  <td>
                    {job.state === 'done' ? (
                      <a
                        className="btn small"
                        href={api.downloadUrl(job.id)}
                        download={job.fileName ?? undefined}
                      >
                        Download
                      </a>
                    ) : job.state === 'queued' || job.state === 'running' ? (
                      <CancelExport id={job.id} source={job.source} />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

// ── Audit log ───────────────────────────────────────────────────────────────────────────────

/** Who decided: the person on a team (and through what, when not themselves), else the actor. */
function decidedByText(entry: AuditEntry): string {
  if (!entry.person) return entry.decidedBy;
  return entry.decidedBy === 'user' ? entry.person : `${entry.person} (via ${entry.decidedBy})`;
}

export function AuditPanel({ refreshKey }: { refreshKey: number }) {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [query, setQuery] = useState('');

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the trigger.
  useEffect(() => {
    let live = true;
    api
      .audit(500)
      .then((result) => {
        if (!live) return;
        setEntries(result.entries);
        setError(null);
      })
      .catch((cause: unknown) => live && setError(cause));
    return () => {
      live = false;
    };
  }, [refreshKey]);

  const shown = (entries ?? []).filter((entry) =>
    query
      ? `${entry.tool} ${entry.decision} ${entry.decidedBy} ${entry.person ?? ''} ${entry.summary ?? ''} ${entry.detail ?? ''}`
          .toLowerCase()
          .includes(query.toLowerCase())
      : true,
  );

  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">Audit log</span>
        <span className="muted">every gated decision, and every stage, commit and discard people make</span>
        <span className="spacer" />
        <input
          className="input"
          aria-label="Search the audit log"
          placeholder="search tool, decision, who…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {entries === null && !error ? <div className="empty">Loading…</div> : null}
      {entries && entries.length === 0 ? (
        <div className="empty">
          <h2>No gated decisions yet</h2>
          <p>When the agent (or an MCP client) asks to do something gated, the decision is recorded here.</p>
        </div>
      ) : null}
      {shown.length > 0 ? (
        <div className="list" style={{ padding: 0 }}>
          <table className="dtable">
            <thead>
              <tr>
                <th>When</th>
                <th>Tool</th>
                <th>Decision</th>
                <th>Decided by</th>
                <th>Profile</th>
                <th>What</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((entry) => (
                <tr key={entry.id} data-testid="audit-entry">
                  <td className="muted" title={entry.at} style={{ whiteSpace: 'nowrap' }}>
                    <When iso={entry.at} />
                  </td>
                  <td>
                    <span className="mono">{entry.tool}</span>{' '}
                    {entry.action === 'staging' ? (
                      <span
                        className="badge"
                        title="A person's own action on the staging area: only people commit and discard."
                      >
                        staging · by a person
                      </span>
                    ) : (
                      <ToolBadges name={entry.tool} />
                    )}
                  </td>
                  <td>
                    <span
                      className={`badge ${entry.decision === 'denied' ? 'danger' : entry.decision === 'asked' ? 'gated' : 'ok'}`}
                    >
                      {entry.decision}
                    </span>
                  </td>
                  <td title={`decided by ${entry.decidedBy}`} data-testid="audit-decided-by">
                    {decidedByText(entry)}
                  </td>
                  <td className="muted">{entry.profile}</td>
                  <td title={`input sha-256 ${entry.inputDigest}`}>
                    {entry.summary ? <div data-testid="audit-summary">{entry.summary}</div> : null}
                    <div className="muted">
                      {entry.detail ?? (entry.summary ? '' : entry.inputDigest.slice(0, 12))}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

// ── The catalog ─────────────────────────────────────────────────────────────────────────────

/** The agent's tools as the rows declare them: the same rows the server and the MCP server use. */
export function ToolsPanel() {
  const [query, setQuery] = useState('');
  const rows = CATALOG_ROWS.filter((row) =>
    query
      ? `${row.name} ${row.description} ${row.keywords.join(' ')}`.toLowerCase().includes(query.toLowerCase())
      : true,
  );
  const inline = CATALOG_ROWS.filter((row) => row.visibility === 'inline').length;
  const [latest, setLatest] = useState<EvalLatest | null>(null);
  useEffect(() => {
    let live = true;
    api
      .evalLatest()
      .then((value) => live && setLatest(value))
      .catch((error: Error) => live && setLatest({ run: null, hint: error.message }));
    return () => {
      live = false;
    };
  }, []);
  const run = latest?.run ?? null;
  const figures = new Map((run?.tools ?? []).map((tool) => [tool.tool, tool]));
  const pct = (value: number) => `${Math.round(value * 100)}%`;
  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">Agent tools</span>
        <span className="muted">
          {CATALOG_ROWS.length} rows · {inline} inline · {CATALOG_ROWS.length - inline} discoverable
        </span>
        <span className="spacer" />
        <input
          className="input"
          aria-label="Search tools"
          placeholder="search tools…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </div>
      <div className="muted" data-testid="eval-summary" style={{ padding: '4px 12px' }}>
        {run
          ? `Latest eval: ${run.model} · ${run.requests} requests × ${run.runs} · ${pct(run.passRate)} passed · searched in ${pct(run.searchRate)} of the requests that needed it · ${formatAgo(run.finishedAt)}`
          : (latest?.hint ?? 'Loading the latest eval run…')}
      </div>
      <div className="list" style={{ padding: 0 }}>
        <table className="dtable">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Tier</th>
              <th>Visibility</th>
              <th title="The latest toolrow eval run: requests that need this tool, passed / searched">
                Last eval
              </th>
              <th>MCP</th>
              <th>Writes</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name} data-testid="tool-row">
                <td className="mono">{row.name}</td>
                <td>
                  <ToolBadges name={row.name} />
                </td>
                <td>{row.visibility}</td>
                <td data-testid="tool-eval" className="mono">
                  {(() => {
                    const tool = figures.get(row.name);
                    if (!tool || tool.attempts === 0) return <span className="muted">–</span>;
                    return (
                      <span
                        title={`${tool.attempts} attempts · found by a search in ${pct(tool.foundRate)} · ${tool.wrongTwinPicks} wrong-twin picks`}
                      >
                        {pct(tool.passRate)} passed · {pct(tool.searchRate)} searched
                      </span>
                    );
                  })()}
                </td>
                <td>{row.mcp}</td>
                <td>{row.writes}</td>
                <td className="muted">{row.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
