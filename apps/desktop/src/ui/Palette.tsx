import { useMemo, useState } from 'react';
import type { TableSummary } from './api.ts';
import { displayTable, formatCount } from './format.ts';

type Pick = { kind: 'table'; id: string } | { kind: 'panel'; id: string } | { kind: 'workbench'; id: string };

const PANELS = [
  { id: 'staging', label: 'Staging' },
  { id: 'exports', label: 'Exports' },
  { id: 'audit', label: 'Audit log' },
  { id: 'tools', label: 'Agent tools' },
  { id: 'clients', label: 'MCP clients' },
];

/** Ctrl+P: type part of a table name, arrows to choose, Enter to open. */
export function Palette({
  tables,
  onPick,
  onClose,
}: {
  tables: TableSummary[];
  onPick: (pick: Pick) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const [index, setIndex] = useState(0);
  const options = useMemo(() => {
    const q = query.trim().toLowerCase();
    const all: { pick: Pick; label: string; detail: string }[] = [
      ...tables.map((table) => ({
        pick: { kind: 'table' as const, id: table.id },
        label: displayTable(table.id),
        detail: `~${formatCount(table.rowEstimate)} rows`,
      })),
      { pick: { kind: 'workbench' as const, id: 'sql' }, label: 'New SQL query', detail: 'workbench' },
      ...PANELS.map((panel) => ({
        pick: { kind: 'panel' as const, id: panel.id },
        label: panel.label,
        detail: 'panel',
      })),
    ];
    return q ? all.filter((option) => option.label.toLowerCase().includes(q)) : all;
  }, [tables, query]);
  const current = Math.min(index, Math.max(0, options.length - 1));

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: Escape closes it too (handled by the app).
    <div className="overlay" onClick={onClose}>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: it only keeps a click inside from closing the palette. */}
      <div className="dialog" role="dialog" aria-label="Open" onClick={(event) => event.stopPropagation()}>
        <input
          className="input"
          // biome-ignore lint/a11y/noAutofocus: the palette exists to be typed into.
          autoFocus
          aria-label="Table or panel"
          placeholder="Open a table, a panel, or a new query…"
          value={query}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-options"
          onChange={(event) => {
            setQuery(event.target.value);
            setIndex(0);
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setIndex(Math.min(options.length - 1, current + 1));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setIndex(Math.max(0, current - 1));
            } else if (event.key === 'Enter') {
              event.preventDefault();
              const option = options[current];
              if (option) onPick(option.pick);
            } else if (event.key === 'Escape') {
              onClose();
            }
          }}
        />
        <div id="palette-options" role="listbox">
          {options.map((option, i) => (
            <button
              key={`${option.pick.kind}:${option.pick.id}`}
              type="button"
              role="option"
              className="option"
              aria-selected={i === current}
              onMouseEnter={() => setIndex(i)}
              onClick={() => onPick(option.pick)}
            >
              <span style={{ flex: 1 }}>{option.label}</span>
              <span className="faint">{option.detail}</span>
            </button>
          ))}
          {options.length === 0 ? (
            <div className="faint" style={{ padding: '8px 14px' }}>
              No match.
            </div>
          ) : null}
        </div>
      </div>
    </div>
  );
}

const SHORTCUTS: [string, string][] = [
  ['Ctrl+P', 'Open a table, panel or new query'],
  ['Ctrl+K', 'Focus the agent'],
  ['Ctrl+.', 'Show or hide the agent'],
  ['Alt+1…9', 'Switch to tab 1…9'],
  ['Alt+W', 'Close the tab'],
  ['/', 'Add or edit a filter (in a table)'],
  ['Arrows, PgUp/PgDn, Ctrl+Home/End', 'Move in the grid'],
  ['Enter or F2', 'Edit the cell (stages the change)'],
  ['Shift+Enter', 'Open the record'],
  ['Space', 'Select or unselect the row'],
  ['Ctrl+C', 'Copy the cell'],
  ['Ctrl+Enter', 'Run the query (workbench)'],
  ['Esc', 'Cancel an edit, close a dialog'],
];

export function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: Escape closes it too (handled by the app).
    <div className="overlay" onClick={onClose}>
      <div className="dialog" role="dialog" aria-label="Keyboard shortcuts">
        <div className="toolbar">
          <span className="title">Keyboard shortcuts</span>
          <span className="spacer" />
          <button type="button" className="btn small ghost" onClick={onClose}>
            Close
          </button>
        </div>
        <table className="shortcuts">
          <tbody>
            {SHORTCUTS.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
