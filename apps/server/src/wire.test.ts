import type { Filter as DsFilter } from '@toolrow/datasource';
import type { UiState } from '@toolrow/desktop/wire';
import type { UiState as DsUiState } from '@toolrow/state';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromDsFilter, jsonValue, toDsFilter, toDsUiPatch, toWireUiState } from './wire.ts';

const condition = fc.record({
  column: fc.constantFrom('status', 'total', 'name', 'we"ird'),
  op: fc.constantFrom('eq', 'neq', 'lt', 'gte', 'contains', 'ilike', 'is_null', 'is_not_null'),
  value: fc.oneof(fc.string(), fc.integer(), fc.boolean()),
});

describe('filters between the wire and the data layer', () => {
  it('turns the flat bar into a condition, an and, or an or', () => {
    expect(toDsFilter({ combine: 'and', conditions: [] })).toBeUndefined();
    expect(toDsFilter({ combine: 'or', conditions: [{ column: 'a', op: 'eq', value: 1 }] })).toEqual({
      column: 'a',
      op: 'eq',
      value: 1,
    });
    expect(
      toDsFilter({
        combine: 'or',
        conditions: [
          { column: 'a', op: 'eq', value: 1 },
          { column: 'b', op: 'is_null' },
        ],
      }),
    ).toEqual({
      or: [
        { column: 'a', op: 'eq', value: 1 },
        { column: 'b', op: 'is_null' },
      ],
    });
  });

  it('round-trips every flat filter', () => {
    fc.assert(
      fc.property(
        fc.array(condition, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('and', 'or'),
        (conditions, combine) => {
          const wire = { combine, conditions } as const;
          const back = fromDsFilter(toDsFilter(wire));
          expect(back.conditions).toEqual(conditions);
          if (conditions.length > 1) expect(back.combine).toBe(combine);
        },
      ),
    );
  });

  it('carries a nested filter as raw, with a readable description, and passes it back unchanged', () => {
    const nested: DsFilter = {
      and: [
        { column: 'status', op: 'eq', value: 'paid' },
        { or: [{ column: 'total', op: 'gt', value: 100 }, { not: { column: 'note', op: 'is_null' } }] },
      ],
    };
    const wire = fromDsFilter(nested);
    expect(wire.conditions).toEqual([]);
    expect(wire.raw).toEqual(nested);
    expect(wire.text).toBe('status = "paid" and (total > 100 or not note is empty)');
    expect(toDsFilter(wire)).toEqual(nested);
  });
});

describe('UI state between the wire and the data layer', () => {
  const ds: DsUiState = {
    profile: 'default',
    tabs: [
      {
        id: 't1',
        kind: 'table',
        table: 'public.orders',
        filter: { column: 'status', op: 'eq', value: 'paid' },
        sort: [{ column: 'id' }],
      },
      { id: 't2', kind: 'workbench', sql: 'select 1' },
      { id: 't3', kind: 'row', table: 'public.orders', key: { id: 7 } },
    ],
    focusedTabId: 't1',
    selection: { tabId: 't1', table: 'public.orders', keys: [{ id: 1 }, { id: 2 }] },
    updatedAt: new Date(),
  };

  it('maps tabs, focus and the focused tab selection', () => {
    const wire = toWireUiState(ds);
    expect(wire.focusedTabId).toBe('t1');
    expect(wire.selection).toEqual([{ id: 1 }, { id: 2 }]);
    expect(wire.tabs[0]).toEqual({
      id: 't1',
      kind: 'table',
      table: 'public.orders',
      filter: { combine: 'and', conditions: [{ column: 'status', op: 'eq', value: 'paid' }] },
      sort: [{ column: 'id', direction: 'asc' }],
    });
    const patch = toDsUiPatch(wire);
    expect(patch.tabs).toEqual([
      { ...ds.tabs[0], sort: [{ column: 'id', direction: 'asc' }] },
      ds.tabs[1],
      ds.tabs[2],
    ]);
    expect(patch.selection).toEqual(ds.selection);
  });

  it('drops a selection that does not belong to the focused tab, and a focus on a closed tab', () => {
    expect(toWireUiState({ ...ds, focusedTabId: 't2' }).selection).toEqual([]);
    const wire: UiState = { tabs: [], focusedTabId: 'gone', selection: [{ id: 1 }] };
    expect(toDsUiPatch(wire)).toEqual({ tabs: [], focusedTabId: null, selection: null });
  });
});

describe('jsonValue', () => {
  it('writes dates as ISO text, bytes as clipped hex, bigints as text', () => {
    expect(jsonValue(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05.000Z');
    expect(jsonValue(new Uint8Array([0, 255]))).toBe('\\x00ff');
    expect(jsonValue(new Uint8Array(100))).toMatch(/…$/);
    expect(jsonValue(12n)).toBe('12');
    expect(jsonValue([new Date(0), 'x'])).toEqual(['1970-01-01T00:00:00.000Z', 'x']);
  });
});
