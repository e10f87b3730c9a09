// biome-ignore-all lint/a11y/useSemanticElements: a virtualised grid cannot be a <table> (rows come and go as it scrolls); it follows the ARIA grid pattern instead.
// biome-ignore-all lint/a11y/useFocusableInteractive: the grid container holds focus and points at the active cell with aria-activedescendant (the ARIA composite-widget pattern), so cells are not tab stops.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type PointerEvent, useEffect, useId, useRef, useState } from 'react';
import type { Row, SortKey } from './api.ts';
import { editText, formatTyped, isNumericType, shortType } from './format.ts';

export interface GridColumn {
  name: string;
  type?: string;
  width: number;
  /** Right-aligned (numbers); by default numeric types are. */
  align?: 'right';
  /** Values in DynamoDB's tagged form though the column has no type (an attribute the sample missed). */
  typedValues?: boolean;
  /** A key badge in the header: 'PK' (primary key), or on DynamoDB 'PK' (partition) and 'SK' (sort). */
  key?: { badge: string; title: string };
}

export interface GridProps {
  label: string;
  columns: GridColumn[];
  rowCount: number;
  /** undefined while the row's page is loading. */
  getRow: (index: number) => Row | undefined;
  /** Called with the visible range (plus overscan) so the owner can fetch those pages. */
  onRange?: (start: number, end: number) => void;
  sort?: SortKey[];
  onSort?: (column: string, additive: boolean) => void;
  isSelected?: (index: number) => boolean;
  onToggleSelect?: (index: number) => void;
  /** The staged value of a cell, if it has one (shown instead of the stored value). */
  stagedValue?: (row: Row, column: string) => { value: unknown } | undefined;
  /** Present when cells can be edited; returns an error text to keep the editor open. */
  onEdit?: (index: number, column: string, text: string) => Promise<string | undefined>;
  onOpenRow?: (index: number) => void;
  /** Enter or F2 asked to edit a grid that has no onEdit: the owner says why. */
  onReadOnly?: () => void;
}

/** The cell being edited, what it holds now and held when opened, and why the last try failed. */
interface Editing {
  row: number;
  col: number;
  text: string;
  initial: string;
  error?: string;
}

const ROW_HEIGHT = 26;
const HEADER_HEIGHT = 30;
const MIN_WIDTH = 48;

/** A virtualised, keyboard-driven grid: only the visible rows are in the DOM, whatever the row count. */
export function Grid(props: GridProps) {
  const { rowCount, getRow, onRange } = props;
  const { columns, setWidths, startResize } = useColumnWidths(props.columns);
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const cellId = (row: number, col: number) => `${gridId}-r${row}-c${col}`;
  const [active, setActive] = useState<{ row: number; col: number }>({ row: 0, col: 0 });
  const [editing, setEditing] = useState<Editing | null>(null);
  // Enter and the blur that follows when the editor unmounts must not stage the edit twice.
  const finishing = useRef(false);

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 24,
    scrollMargin: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    if (last >= first) onRange?.(first, last);
  }, [first, last, onRange]);

  useEffect(() => {
    setActive((current) => ({
      row: Math.min(current.row, Math.max(0, rowCount - 1)),
      col: Math.min(current.col, Math.max(0, columns.length - 1)),
    }));
  }, [rowCount, columns.length]);

  const move = (row: number, col: number) => {
    const next = {
      row: Math.max(0, Math.min(rowCount - 1, row)),
      col: Math.max(0, Math.min(columns.length - 1, col)),
    };
    setActive(next);
    virtualizer.scrollToIndex(next.row, { align: 'auto' });
  };

  const startEdit = (row: number, col: number, initial?: string) => {
    const data = getRow(row);
    const column = columns[col];
    if (!props.onEdit || !data || !column) return;
    const staged = props.stagedValue?.(data, column.name);
    finishing.current = false;
    const text = initial ?? editText(staged ? staged.value : data[column.name], column.type);
    setEditing({ row, col, text, initial: text });
  };

  const finishEdit = async (commit: boolean) => {
    if (!editing || finishing.current) return;
    finishing.current = true;
    const column = columns[editing.col];
    if (!commit || !column || !props.onEdit) {
      setEditing(null);
      scrollRef.current?.focus();
      return;
    }
    const error = await props.onEdit(editing.row, column.name, editing.text);
    if (error) {
      finishing.current = false;
      setEditing({ ...editing, error });
      return;
    }
    setEditing(null);
    scrollRef.current?.focus();
  };

  const pageRows = Math.max(
    1,
    Math.floor(((scrollRef.current?.clientHeight ?? 600) - HEADER_HEIGHT) / ROW_HEIGHT) - 1,
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing || rowCount === 0) return;
    if (onGridKey(event, { ...active, rowCount, columns, pageRows, move, setWidths, startEdit, props }))
      event.preventDefault();
  };

  const totalWidth = 56 + columns.reduce((sum, column) => sum + column.width, 0);

  return (
    <div
      ref={scrollRef}
      className="grid"
      role="grid"
      aria-label={props.label}
      aria-rowcount={rowCount + 1}
      aria-colcount={columns.length}
      tabIndex={0}
      aria-activedescendant={rowCount > 0 ? cellId(active.row, active.col) : undefined}
      onKeyDown={onKeyDown}
    >
      <div className="grid-head" role="row" style={{ width: totalWidth }}>
        <div className="hcell rownum" role="columnheader">
          #
        </div>
        {columns.map((column) => (
          <HeaderCell
            key={column.name}
            column={column}
            sort={props.sort}
            sortable={props.onSort !== undefined}
            onSort={(additive) => props.onSort?.(column.name, additive)}
            onResizeStart={(event) => startResize(event, column)}
          />
        ))}
      </div>
      <div style={{ height: virtualizer.getTotalSize(), width: totalWidth, position: 'relative' }}>
        {items.map((item) => {
          const data = getRow(item.index);
          const selected = props.isSelected?.(item.index) ?? false;
          return (
            <div
              key={item.key}
              className={`grid-row${selected ? ' selected' : ''}`}
              role="row"
              aria-rowindex={item.index + 2}
              aria-selected={selected}
              style={{
                height: ROW_HEIGHT,
                transform: `translateY(${item.start - HEADER_HEIGHT}px)`,
                width: totalWidth,
              }}
            >
              {/* biome-ignore lint/a11y/useKeyWithClickEvents: Space toggles selection from the keyboard. */}
              <div
                className="cell rownum"
                role="rowheader"
                title="Click to select, double-click to open the record (Space / Shift+Enter)"
                onClick={() => {
                  setActive((current) => ({ ...current, row: item.index }));
                  props.onToggleSelect?.(item.index);
                }}
                onDoubleClick={() => props.onOpenRow?.(item.index)}
              >
                {item.index + 1}
              </div>
              {columns.map((column, col) => {
                if (editing && editing.row === item.index && editing.col === col) {
                  return (
                    <CellEditor
                      key={column.name}
                      column={column}
                      editing={editing}
                      onChange={(text) => setEditing({ ...editing, text, error: undefined })}
                      onFinish={(commit) => void finishEdit(commit)}
                    />
                  );
                }
                if (!data) {
                  return (
                    <div
                      key={column.name}
                      className="cell loading"
                      role="gridcell"
                      style={{ width: column.width }}
                    >
                      …
                    </div>
                  );
                }
                return (
                  <DataCell
                    key={column.name}
                    id={cellId(item.index, col)}
                    column={column}
                    stored={data[column.name]}
                    staged={props.stagedValue?.(data, column.name)}
                    active={active.row === item.index && active.col === col}
                    onActivate={() => setActive({ row: item.index, col })}
                    onEdit={() => startEdit(item.index, col)}
                  />
                );
              })}
            </div>
          );
        })}
      </div>
      {editing?.error ? (
        <div
          className="error-box"
          role="alert"
          style={{ position: 'sticky', bottom: 8, left: 8, width: 'max-content' }}
        >
          {editing.error}
        </div>
      ) : null}
    </div>
  );
}

/** Column widths: as given, or as the person dragged them (they outlive a reload of the rows). */
function useColumnWidths(given: GridColumn[]) {
  // Widths the user dragged, by column name; they outlive a reload of the rows.
  const [widths, setWidths] = useState<Record<string, number>>({});
  const columns = given.map((column) => {
    const width = widths[column.name];
    return width ? { ...column, width } : column;
  });
  const startResize = (event: PointerEvent<HTMLSpanElement>, column: GridColumn) => {
    event.preventDefault();
    event.stopPropagation();
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    const startX = event.clientX;
    const onMove = (move: globalThis.PointerEvent) =>
      setWidths((current) => ({
        ...current,
        [column.name]: Math.max(MIN_WIDTH, Math.round(column.width + move.clientX - startX)),
      }));
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
  };
  return { columns, setWidths, startResize };
}

/** A column's header: its key badge, name, type and sort, a click to sort and a handle to resize. */
function HeaderCell({
  column,
  sort,
  sortable,
  onSort,
  onResizeStart,
}: {
  column: GridColumn;
  sort: SortKey[] | undefined;
  sortable: boolean;
  onSort: (additive: boolean) => void;
  onResizeStart: (event: PointerEvent<HTMLSpanElement>) => void;
}) {
  const sortIndex = sort?.findIndex((key) => key.column === column.name) ?? -1;
  const sortKey = sortIndex >= 0 ? sort?.[sortIndex] : undefined;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: sorting by keyboard goes through the filter bar's sort menu.
    <div
      className="hcell"
      role="columnheader"
      aria-sort={sortKey ? (sortKey.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
      style={{ width: column.width }}
      title={
        sortable
          ? `${column.name} ${column.type ?? ''}\nClick to sort, Shift+click to add a sort key`
          : column.name
      }
      onClick={(event) => {
        // The end of a resize drag is not a click on the header.
        if ((event.target as HTMLElement).classList.contains('col-resize')) return;
        onSort(event.shiftKey);
      }}
    >
      {column.key ? (
        <span className="key-badge" title={column.key.title}>
          {column.key.badge}
        </span>
      ) : null}
      <span className="hname">{column.name}</span>
      {column.type ? <span className="type">{shortType(column.type)}</span> : null}
      {sortKey ? (
        <span className="sort">
          {sortKey.direction === 'asc' ? '▲' : '▼'}
          {(sort?.length ?? 0) > 1 ? sortIndex + 1 : ''}
        </span>
      ) : null}
      {/* The pointer's way to resize; the keyboard's is Alt+←/→ on the active column. */}
      <span
        className="col-resize"
        data-testid={`resize-${column.name}`}
        title={`Drag to resize ${column.name} (Alt+←/→ from the keyboard)`}
        onPointerDown={onResizeStart}
      />
    </div>
  );
}

/** The open editor of one cell: Enter or Tab stages, Escape cancels, leaving it stages a change. */
function CellEditor({
  column,
  editing,
  onChange,
  onFinish,
}: {
  column: GridColumn;
  editing: Editing;
  onChange: (text: string) => void;
  onFinish: (commit: boolean) => void;
}) {
  return (
    <div className="cell active" role="gridcell" style={{ width: column.width }}>
      <input
        className="cell-editor"
        aria-label={`Edit ${column.name}`}
        // biome-ignore lint/a11y/noAutofocus: the editor opens because the user asked for it.
        autoFocus
        value={editing.text}
        title={editing.error ?? 'Enter stages the change, Escape cancels'}
        aria-invalid={!!editing.error}
        style={editing.error ? { color: 'var(--danger)' } : undefined}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' || event.key === 'Tab') {
            event.preventDefault();
            onFinish(true);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            onFinish(false);
          }
        }}
        onBlur={() => onFinish(editing.text !== editing.initial)}
      />
    </div>
  );
}

/** One value: the staged one where there is one (marked), NULL and absent told apart, numbers right. */
function DataCell({
  id,
  column,
  stored,
  staged,
  active,
  onActivate,
  onEdit,
}: {
  id: string;
  column: GridColumn;
  stored: unknown;
  staged: { value: unknown } | undefined;
  active: boolean;
  onActivate: () => void;
  onEdit: () => void;
}) {
  const value = staged ? staged.value : stored;
  const classes = ['cell'];
  if (value === undefined) classes.push('absent');
  else if (value === null) classes.push('null');
  else if (column.align === 'right' || isNumericType(column.type)) classes.push('number');
  if (staged) classes.push('staged');
  if (active) classes.push('active');
  const text = formatTyped(value, column.type, column.typedValues || undefined);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the grid handles arrows, Enter and F2.
    <div
      id={id}
      className={classes.join(' ')}
      role="gridcell"
      aria-selected={active}
      title={
        staged
          ? `staged: ${text} (was ${formatTyped(stored, column.type, column.typedValues || undefined)})`
          : value === undefined
            ? `This item has no ${column.name} attribute`
            : text
      }
      style={{ width: column.width }}
      onClick={onActivate}
      onDoubleClick={onEdit}
    >
      {/* The text sits in its own box so a long value ends in an ellipsis on the right, never cut on the left. */}
      <span className="cell-text">{text}</span>
    </div>
  );
}

/** What a key does in the grid (arrows, pages, Home/End, Enter, F2, Space, Ctrl+C, Alt+←/→); true when it did something. */
function onGridKey(
  event: KeyboardEvent<HTMLDivElement>,
  context: {
    row: number;
    col: number;
    rowCount: number;
    columns: GridColumn[];
    pageRows: number;
    move: (row: number, col: number) => void;
    setWidths: (update: (current: Record<string, number>) => Record<string, number>) => void;
    startEdit: (row: number, col: number) => void;
    props: GridProps;
  },
): boolean {
  const { row, col, rowCount, columns, pageRows, move, setWidths, startEdit, props } = context;
  const mod = event.ctrlKey || event.metaKey;
  const activeColumn = columns[col];
  if (event.altKey && activeColumn && (event.key === 'ArrowLeft' || event.key === 'ArrowRight')) {
    const step = event.key === 'ArrowRight' ? 24 : -24;
    setWidths((current) => ({
      ...current,
      [activeColumn.name]: Math.max(MIN_WIDTH, activeColumn.width + step),
    }));
    return true;
  }
  let handled = true;
  switch (event.key) {
    case 'ArrowDown':
      move(mod ? rowCount - 1 : row + 1, col);
      break;
    case 'ArrowUp':
      move(mod ? 0 : row - 1, col);
      break;
    case 'ArrowRight':
      move(row, mod ? columns.length - 1 : col + 1);
      break;
    case 'ArrowLeft':
      move(row, mod ? 0 : col - 1);
      break;
    case 'PageDown':
      move(row + pageRows, col);
      break;
    case 'PageUp':
      move(row - pageRows, col);
      break;
    case 'Home':
      move(mod ? 0 : row, 0);
      break;
    case 'End':
      move(mod ? rowCount - 1 : row, columns.length - 1);
      break;
    case 'Enter':
      if (event.shiftKey || !props.onEdit) props.onOpenRow?.(row);
      else startEdit(row, col);
      break;
    case 'F2':
      if (props.onEdit) startEdit(row, col);
      else props.onReadOnly?.();
      break;
    case ' ':
      props.onToggleSelect?.(row);
      break;
    case 'c':
      if (mod) {
        const data = props.getRow(row);
        const column = columns[col];
        if (data && column)
          void navigator.clipboard?.writeText(editText(data[column.name], column.type)).catch(() => {});
      } else handled = false;
      break;
    default:
      handled = false;
  }
  return handled;
}
