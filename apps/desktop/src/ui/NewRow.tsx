// A new row, staged: one field per column (the database's own columns left out), each parsed as
// the grid parses an edit; the staging area checks it as the stage tool's insert (required
// columns, types, keys) and its refusal is shown here, the values kept.
import { useState } from 'react';
import type { Row, TableInfo } from './api.ts';
import { displayTable, editText, parseEdit } from './format.ts';
import { ErrorBox, FormDialog } from './widgets.tsx';

export interface NewRowDialogProps {
  table: string;
  info: TableInfo;
  /** Values to start from (the record view's row, its key left out). */
  initial?: Row;
  onStage: (row: Row) => Promise<void>;
  onClose: () => void;
}

/** Columns a person fills: every column the database does not fill itself. */
function fillable(info: TableInfo) {
  return info.columns.filter((column) => !column.generated);
}

export function NewRowDialog({ table, info, initial, onStage, onClose }: NewRowDialogProps) {
  const columns = fillable(info);
  const [draft, setDraft] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      columns
        .filter((column) => initial?.[column.name] !== undefined && !info.primaryKey.includes(column.name))
        .map((column) => [column.name, editText(initial?.[column.name], column.type)]),
    ),
  );
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const row: Row = {};
    for (const column of columns) {
      const text = draft[column.name];
      // Left empty: the column's default (or NULL) applies, as an insert that leaves it out.
      if (text === undefined || text === '') continue;
      const parsed = parseEdit(text, column);
      if ('error' in parsed) {
        setError(new Error(parsed.error));
        return;
      }
      row[column.name] = parsed.value;
    }
    setBusy(true);
    try {
      await onStage(row);
      onClose();
    } catch (cause) {
      setError(cause);
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog label="New row" title={`New row in ${displayTable(table)}`} onClose={onClose}>
      <form
        className="connection-form new-row"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <p className="faint">
          Staged, not written: it is inserted when the staging area is committed. Empty fields take the
          column's default.
        </p>
        {columns.map((column) => {
          const required = !column.nullable && column.default === null;
          return (
            <label key={column.name}>
              <span>
                {column.name} <span className="faint">{column.type}</span>
                {required ? <span className="badge gated">required</span> : null}
              </span>
              <input
                className="input"
                aria-label={column.name}
                value={draft[column.name] ?? ''}
                placeholder={column.default ? `default ${column.default}` : column.nullable ? 'NULL' : ''}
                onChange={(event) =>
                  setDraft((current) => ({ ...current, [column.name]: event.target.value }))
                }
              />
            </label>
          );
        })}
        {error ? <ErrorBox error={error} /> : null}
        <div className="actions">
          <button type="submit" className="btn primary" disabled={busy}>
            {busy ? 'Staging…' : 'Stage insert'}
          </button>
        </div>
      </form>
    </FormDialog>
  );
}
