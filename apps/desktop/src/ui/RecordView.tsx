import { useEffect, useState } from 'react';
import { ApiError, api, type Row, type RowKey, type StagedChange, type TableInfo } from './api.ts';
import {
  describeKey,
  displayTable,
  editText,
  formatTyped,
  keyBadge,
  keyString,
  parseEdit,
} from './format.ts';
import { NewRowDialog } from './NewRow.tsx';
import { allowed } from './permissions.ts';
import { ErrorBox } from './widgets.tsx';

export interface RecordViewProps {
  table: string;
  rowKey: RowKey;
  info: TableInfo | undefined;
  staged: StagedChange[];
  dataVersion: number;
  /** `seen`: the stored values the edit was based on (what the person saw). */
  onStagedEdit: (key: RowKey, values: Row, seen: Row) => Promise<void>;
  onStagedDelete: (keys: RowKey[]) => void;
  /** Stages new rows; rejects with a readable error. */
  onStagedInsert: (rows: Row[]) => Promise<void>;
  onOpenTable: () => void;
}

/** One record, every column on its own line; edits are staged together. */
export function RecordView(props: RecordViewProps) {
  const { table, rowKey, info } = props;
  const [row, setRow] = useState<Row | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [copying, setCopying] = useState(false);
  const keyId = keyString(rowKey);

  // biome-ignore lint/correctness/useExhaustiveDependencies: keyId stands for rowKey.
  useEffect(() => {
    let live = true;
    setRow(undefined);
    setError(null);
    api
      .row(table, rowKey)
      .then((result) => live && setRow(result.row))
      .catch((cause: unknown) => live && setError(cause));
    return () => {
      live = false;
    };
  }, [table, keyId, props.dataVersion]);

  const stagedHere = props.staged.filter(
    (change) => change.table === table && keyString(change.key) === keyId,
  );
  const stagedValues = new Map<string, unknown>();
  for (const change of stagedHere) for (const c of change.changes) stagedValues.set(c.column, c.after);
  const stagedDelete = stagedHere.some((change) => change.kind === 'delete');

  const dirty = Object.keys(draft).length > 0;
  const stage = async () => {
    if (!info) return;
    const values: Row = {};
    for (const [column, text] of Object.entries(draft)) {
      const columnInfo = info.columns.find((c) => c.name === column);
      if (!columnInfo) continue;
      const parsed = parseEdit(text, columnInfo);
      if ('error' in parsed) {
        setError(new Error(parsed.error));
        return;
      }
      values[column] = parsed.value;
    }
    // What the person saw of each edited column: staging refuses the edit if any changed since.
    const seen: Row = {};
    for (const column of Object.keys(values)) if (row?.[column] !== undefined) seen[column] = row[column];
    setSaving(true);
    try {
      await props.onStagedEdit(rowKey, values, seen);
      setDraft({});
      setError(null);
    } catch (cause) {
      setError(cause);
      // Another writer came in between: show the row as it is now and keep the edit, so the
      // person decides (staging again is based on the value now on screen).
      if (cause instanceof ApiError && cause.code === 'staging-conflict')
        api
          .row(table, rowKey)
          .then((result) => setRow(result.row))
          .catch(() => undefined);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="view">
      {copying && info && row ? (
        <NewRowDialog
          table={table}
          info={info}
          initial={row}
          onStage={(values) => props.onStagedInsert([values])}
          onClose={() => setCopying(false)}
        />
      ) : null}
      <div className="toolbar">
        <span className="title">
          {displayTable(table)} · {describeKey(rowKey)}
        </span>
        {stagedDelete ? <span className="badge danger">staged delete</span> : null}
        {stagedHere.length > 0 && !stagedDelete ? (
          <span className="badge gated">
            {stagedHere.length === 1 ? '1 staged change' : `${stagedHere.length} staged changes`} (
            {stagedValues.size === 1 ? '1 column' : `${stagedValues.size} columns`})
          </span>
        ) : null}
        <span className="spacer" />
        <button type="button" className="btn ghost" onClick={props.onOpenTable}>
          Open {displayTable(table)}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!row || !info || !allowed('stage').ok}
          title={
            allowed('stage').why ?? 'Stage a new row starting from this one (its key left for you to give)'
          }
          onClick={() => setCopying(true)}
        >
          Copy as new row
        </button>
        <button
          type="button"
          className="btn danger"
          disabled={!row || stagedDelete || !allowed('stage').ok}
          title={allowed('stage').why}
          onClick={() => props.onStagedDelete([rowKey])}
        >
          Stage delete
        </button>
        <button type="button" className="btn" disabled={!dirty} onClick={() => setDraft({})}>
          Reset
        </button>
        <button
          type="button"
          className="btn primary"
          disabled={!dirty || saving}
          onClick={() => void stage()}
        >
          Stage changes
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {row === undefined && !error ? <div className="empty">Loading…</div> : null}
      {row === null ? (
        <div className="empty">
          <h2>No such row</h2>
          <p>
            {table} has no row with {describeKey(rowKey)}. It may have been deleted since the tab was opened.
          </p>
        </div>
      ) : null}
      {row ? (
        <form
          className="record"
          onSubmit={(event) => {
            event.preventDefault();
            void stage();
          }}
        >
          <table>
            <tbody>
              {(
                info?.columns ??
                Object.keys(row).map((name) => ({ name, type: '', nullable: true, default: null }))
              ).map((column) => (
                <RecordField
                  key={column.name}
                  column={column}
                  primaryKey={info?.primaryKey ?? []}
                  stored={row[column.name]}
                  staged={stagedValues.has(column.name)}
                  stagedValue={stagedValues.get(column.name)}
                  draft={draft[column.name]}
                  onDraft={(text) => setDraft({ ...draft, [column.name]: text })}
                />
              ))}
            </tbody>
          </table>
          <p className="faint">
            Enter stages the edited fields. Nothing changes in the table until you commit in Staging.
          </p>
          <button type="submit" hidden />
        </form>
      ) : null}
    </div>
  );
}

/** One column of the record: its name, type and key badge, and the field its value is edited in. */
function RecordField({
  column,
  primaryKey,
  stored,
  staged,
  stagedValue,
  draft,
  onDraft,
}: {
  column: { name: string; type: string; nullable: boolean };
  primaryKey: readonly string[];
  stored: unknown;
  staged: boolean;
  stagedValue: unknown;
  draft: string | undefined;
  onDraft: (text: string) => void;
}) {
  const key = keyBadge(column, primaryKey);
  const shown = staged ? stagedValue : stored;
  return (
    <tr>
      <th scope="row">
        <label htmlFor={`field-${column.name}`}>
          {column.name}
          {key ? (
            <span className="pk" title={key.title}>
              {key.badge}
            </span>
          ) : null}
        </label>
        <span className="type">
          {column.type}
          {column.nullable ? '' : ' · not null'}
        </span>
      </th>
      <td>
        <input
          id={`field-${column.name}`}
          className="input"
          readOnly={key !== undefined}
          value={draft ?? editText(shown, column.type)}
          placeholder={shown === null ? 'NULL' : shown === undefined ? '(absent)' : undefined}
          style={staged ? { background: 'var(--warn-weak)' } : undefined}
          title={
            staged
              ? `staged; stored value: ${formatTyped(stored, column.type)}`
              : draft !== undefined
                ? `edited; stored value: ${formatTyped(stored, column.type)}`
                : shown === undefined
                  ? `This item has no ${column.name} attribute`
                  : undefined
          }
          onChange={(event) => onDraft(event.target.value)}
        />
      </td>
    </tr>
  );
}
