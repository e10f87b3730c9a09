import { isNumberText } from '@toolrow/datasource/numbers';
import { useMemo, useRef, useState } from 'react';
import { ApiError, api, type ExportJob, type QueryPlanResult, type QueryResult } from './api.ts';
import { ChartBuilder } from './ChartBuilder.tsx';
import { formatCount, readBadgeText } from './format.ts';
import { Grid, type GridColumn } from './Grid.tsx';
import { ErrorBox } from './widgets.tsx';

export interface WorkbenchProps {
  sql: string;
  /** The connection's query languages, its first the default (DynamoDB: SQL, then PartiQL). */
  languages?: Language[];
  /** The engine has the typedValues feature: values are shown readable ({total: 12.50}), not tagged. */
  typedValues?: boolean;
  onSqlChange: (sql: string) => void;
  onExport: (sql: string, format: ExportJob['format']) => void;
}

function looksNumeric(values: unknown[]): boolean {
  const present = values.filter((value) => value !== null && value !== undefined);
  return present.length > 0 && present.every((value) => typeof value === 'number' || isNumberText(value));
}

interface Language {
  name: string;
  example: string;
}

const SQL: Language = { name: 'SQL', example: 'select status, count(*) from orders group by status' };

/** A read refused before it started for the connection's item bound: what it would read, and the bound. */
function pastBound(error: unknown): { itemsToRead: number; bound: number } | undefined {
  if (!(error instanceof ApiError) || error.code !== 'too-large') return undefined;
  const details = error.details as { itemsToRead?: unknown; bound?: unknown } | undefined;
  return typeof details?.itemsToRead === 'number' && typeof details.bound === 'number'
    ? { itemsToRead: details.itemsToRead, bound: details.bound }
    : undefined;
}

/** "Query on orders index by_customer · 12 items": how the engine read each table. */
/** The SQL workbench: one read-only statement at a time (the server refuses writes; stage them instead). */
export function Workbench({
  sql,
  languages = [SQL],
  typedValues = false,
  onSqlChange,
  onExport,
}: WorkbenchProps) {
  const [chosen, setChosen] = useState(0);
  const language = languages[chosen] ?? languages[0] ?? SQL;
  // The connection's first language is the server's default: only another one is named.
  const named = chosen > 0 ? language.name : undefined;
  const [plan, setPlan] = useState<QueryPlanResult | null>(null);
  const [result, setResult] = useState<QueryResult | null>(null);
  // The statement the rows shown are the answer of: a plan of another one hides them.
  const [resultOf, setResultOf] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const editor = useRef<HTMLTextAreaElement>(null);

  const run = async (maxItemsRead?: number) => {
    if (!sql.trim() || running) return;
    setRunning(true);
    setError(null);
    setPlan(null);
    try {
      setResult(await api.query(sql, named, maxItemsRead));
      setResultOf(sql);
    } catch (cause) {
      // The previous statement's rows would read as this one's answer: show only the error.
      setResult(null);
      setError(cause);
    } finally {
      setRunning(false);
    }
  };

  const explain = async () => {
    if (!sql.trim() || running) return;
    setError(null);
    // Rows of another statement under this one's plan would read as its answer.
    if (resultOf !== sql) setResult(null);
    try {
      setPlan(await api.queryPlan(sql, named));
    } catch (cause) {
      setPlan(null);
      setError(cause);
    }
  };

  const columns: GridColumn[] = useMemo(
    () =>
      (result?.columns ?? []).map((name) => {
        // A query result carries no column types, so its values decide the alignment.
        const numeric = looksNumeric(result?.rows.slice(0, 100).map((row) => row[name]) ?? []);
        return {
          name,
          ...(typedValues ? { typedValues: true } : {}),
          ...(numeric ? { align: 'right' as const } : {}),
          width: Math.min(320, Math.max(numeric ? 90 : 120, name.length * 8 + 40)),
        };
      }),
    [result, typedValues],
  );

  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">{language.name} workbench</span>
        {languages.length > 1 ? (
          <select
            aria-label="Query language"
            value={chosen}
            onChange={(event) => {
              setChosen(Number(event.target.value));
              setResult(null);
              setPlan(null);
              setError(null);
            }}
          >
            {languages.map((each, index) => (
              <option key={each.name} value={index}>
                {each.name}
              </option>
            ))}
          </select>
        ) : null}
        <span className="faint" data-testid="workbench-language">
          read-only · one {language.name} statement
        </span>
        <span className="spacer" />
        <button type="button" className="btn" disabled={!sql.trim()} onClick={() => void explain()}>
          Plan
        </button>
        <button
          type="button"
          className="btn"
          disabled={!sql.trim() || chosen > 0}
          title={
            chosen > 0 ? `Exports read ${languages[0]?.name ?? 'SQL'}: switch to it to export` : undefined
          }
          onClick={() => onExport(sql, 'csv')}
        >
          Export CSV
        </button>
        <button
          type="button"
          className="btn primary"
          disabled={running || !sql.trim()}
          onClick={() => void run()}
        >
          {running ? 'Running…' : 'Run'} <kbd>Ctrl</kbd>+<kbd>Enter</kbd>
        </button>
      </div>
      <div className="workbench-editor">
        <textarea
          ref={editor}
          aria-label="SQL"
          spellCheck={false}
          value={sql}
          placeholder={language.example}
          onChange={(event) => onSqlChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              void run();
            }
          }}
        />
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {pastBound(error) ? (
        <div className="toolbar" data-testid="read-past-bound">
          <span className="muted">
            It would read about {formatCount(pastBound(error)!.itemsToRead)} items, past the{' '}
            {formatCount(pastBound(error)!.bound)} this connection allows one read.
          </span>
          <button
            type="button"
            className="btn"
            onClick={() => void run(Math.ceil(pastBound(error)!.itemsToRead * 1.2))}
          >
            Read about {formatCount(pastBound(error)!.itemsToRead)} items anyway
          </button>
        </div>
      ) : null}
      {plan ? (
        <div className="workbench-plan" data-testid="query-plan">
          <strong>Plan</strong> <span className="faint">{plan.note ?? 'nothing was run'}</span>
          <ol>
            {plan.lines.map((line, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: plan lines are positional and may repeat
              <li key={index}>{line}</li>
            ))}
          </ol>
        </div>
      ) : null}
      {result ? (
        <QueryResultView
          result={result}
          resultOf={resultOf}
          columns={columns}
          chartLanguage={chosen > 0 ? (languages[0]?.name ?? 'SQL') : undefined}
        />
      ) : !error ? (
        <div className="empty">
          <p>
            Write a SELECT and press <kbd>Ctrl</kbd>+<kbd>Enter</kbd>.
          </p>
        </div>
      ) : null}
    </div>
  );
}

/** A statement's rows: how many, how they were read, the Chart button, and the grid. */
function QueryResultView({
  result,
  resultOf,
  columns,
  chartLanguage,
}: {
  result: QueryResult;
  resultOf: string | null;
  columns: GridColumn[];
  /** Set when another language than the connection's first is chosen: the one charts read, to switch to. */
  chartLanguage: string | undefined;
}) {
  const [charting, setCharting] = useState(false);
  return (
    <>
      <div className="toolbar">
        <span className="muted num" data-testid="query-summary">
          {formatCount(result.rowCount)} {result.rowCount === 1 ? 'row' : 'rows'} · {result.elapsedMs} ms
        </span>
        {result.truncated ? (
          <span
            className="badge gated"
            title="The workbench shows the first rows only; export to get them all"
          >
            truncated
          </span>
        ) : null}
        <span className="spacer" />
        <button
          type="button"
          className={`btn small${charting ? ' primary' : ''}`}
          disabled={chartLanguage !== undefined}
          title={
            chartLanguage
              ? `Charts read ${chartLanguage}: switch to it to chart`
              : 'Draw a chart of this result'
          }
          onClick={() => setCharting((open) => !open)}
        >
          Chart
        </button>
        {(result.reads ?? []).map((read) => (
          <span
            key={`${read.table}-${read.operation}-${read.index ?? ''}`}
            className={`badge ${read.operation === 'Scan' ? 'gated' : 'silent'}`}
            data-testid="query-read"
            title={read.note ?? `How ${read.table} was read`}
          >
            {readBadgeText(read)}
          </span>
        ))}
      </div>
      {charting && resultOf ? (
        // A new result is a new chart: the picks start from its columns.
        <ChartBuilder
          key={`${resultOf}\n${result.columns.join(',')}`}
          sql={resultOf}
          columns={result.columns}
        />
      ) : null}
      <Grid
        label="Query results"
        columns={columns}
        rowCount={result.rows.length}
        getRow={(index) => result.rows[index]}
      />
    </>
  );
}
