import { CATALOG_ROWS, type CatalogRow, titleOf } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { annotationsFor, isDestructive, stagedOperationOf } from './annotations.ts';

describe('annotations from the rows', () => {
  it.each(CATALOG_ROWS.map((row) => ({ name: row.name, row })))('$name', ({ row }) => {
    const annotations = annotationsFor(row);
    expect(annotations.readOnlyHint).toBe(row.writes === 'none');
    expect(annotations.idempotentHint).toBe(row.writes === 'none');
    expect(annotations.openWorldHint).toBe(false);
    // Only writes that reach table rows can be destructive.
    if (row.writes !== 'staging') expect(annotations.destructiveHint).toBe(false);
    expect(annotations.title).toBe(titleOf(row.name));
  });

  it('marks staged deletes and updates destructive, staged inserts not', () => {
    const byName = (name: string) => CATALOG_ROWS.find((row) => row.name === name) as CatalogRow;
    expect(annotationsFor(byName('stageDeleteRows')).destructiveHint).toBe(true);
    expect(annotationsFor(byName('stageUpdateRows')).destructiveHint).toBe(true);
    expect(annotationsFor(byName('stageInsertRows')).destructiveHint).toBe(false);
    expect(stagedOperationOf(byName('stageDeleteRows'))).toBe('delete');
    expect(stagedOperationOf(byName('runQuery'))).toBeUndefined();
  });

  it('every stage row declares the operation it queues (else it would count as destructive)', () => {
    const stageRows = CATALOG_ROWS.filter((row) => row.access === 'stage');
    expect(stageRows.length).toBeGreaterThan(0);
    for (const row of stageRows) expect(stagedOperationOf(row), row.name).toBeDefined();
  });

  it('treats a stage tool without a declared operation as destructive', () => {
    const odd = {
      ...(CATALOG_ROWS.find((row) => row.access === 'stage') as CatalogRow),
      stages: undefined,
    } as CatalogRow;
    expect(isDestructive(odd)).toBe(true);
  });

  it('lists only read-only rows as readOnly, counting them from the rows', () => {
    const readOnly = CATALOG_ROWS.filter((row) => annotationsFor(row).readOnlyHint);
    expect(readOnly.length).toBe(CATALOG_ROWS.filter((row) => row.writes === 'none').length);
    expect(readOnly.every((row) => row.tier !== 'gated' || row.access === 'read')).toBe(true);
  });

  it('titles camelCase names', () => {
    expect(titleOf('stageDeleteRows')).toBe('Stage delete rows');
    expect(titleOf('getRow')).toBe('Get row');
  });
});
