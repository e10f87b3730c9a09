// A request's intent from its shape, and what it moves: a question about an act ranks the rows
// that report on it (status, list, diff) above the act; an act said first, or with a value, ranks
// above the rows that only share its nouns. The rows' roles come from what they write and need.
import { CATALOG_ROWS } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { intentOf, intentRoles } from './intent.ts';
import { proposedTwin, searchCatalog } from './scorer.ts';

describe('intentOf', () => {
  it.each([
    ['is the export finished', { question: true, valued: false }],
    ['did my csv finish downloading', { question: true, valued: false }],
    ['what will my updates change', { question: true, valued: false }],
    ['¿ya terminó la exportación?', { question: true, valued: false }],
    ['导出完成了吗', { question: true, valued: false }],
    ['export orders as csv', { question: false, valued: false }],
    ['how do I delete order 5', { question: false, valued: true }],
    ['can you export this?', { question: false, valued: false }],
    ['set stock to 0 for product 17', { question: false, valued: true }],
    ['rename it to "Blue mug"', { question: false, valued: true }],
  ])('%s', (query, intent) => {
    expect(intentOf(query)).toEqual(intent);
  });
});

describe('the rows’ roles, from what they write and need', () => {
  const roles = new Map(
    CATALOG_ROWS.map((row, index) => [row.name, intentRoles(CATALOG_ROWS, proposedTwin)[index]!]),
  );
  it('acts write staging or files (or offer a row that does); reports write nothing and share their need', () => {
    expect(roles.get('startExport')).toMatchObject({ act: true });
    expect(roles.get('proposeExport')).toMatchObject({ act: true });
    expect(roles.get('stageUpdateRows')).toMatchObject({ act: true });
    expect(roles.get('getExportStatus')).toMatchObject({ act: false, reports: ['exports'] });
    expect(roles.get('diffStagedChanges')).toMatchObject({ act: false, reports: ['stagedWrites'] });
    expect(roles.get('openTable')).toMatchObject({ act: false, reports: [] });
  });
});

describe('what intent moves in a search', () => {
  it.each([
    // A question about an act's progress or result: its status, list or diff first.
    ['how far along is the export of order_items', 'getExportStatus'],
    ['did my csv finish downloading', 'getExportStatus'],
    ['has the bulk export of items completed', 'getExportStatus'],
    // A verb with an object (and a value): the act first.
    ['change the price to 10 for sku 4', 'stageUpdateRows'],
    ['change the price', 'stageUpdateRows'],
  ])('%s → %s', (query, expected) => {
    expect(searchCatalog(query)[0]?.name).toBe(expected);
  });

  it('a question about staged updates puts the staging lists above the act', () => {
    const names = searchCatalog('what exactly will change in the staged updates').map((match) => match.name);
    expect(names.indexOf('stageUpdateRows')).toBeGreaterThan(names.indexOf('diffStagedChanges'));
    expect(names.indexOf('stageUpdateRows')).toBeGreaterThan(names.indexOf('listStagedChanges'));
  });
});
