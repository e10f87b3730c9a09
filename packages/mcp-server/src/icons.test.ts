import { CATALOG_ROWS, type CatalogRow } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { type IconKind, iconKindOf, iconsFor } from './icons.ts';

const decode = (src: string) => atob(src.replace(/^data:image\/svg\+xml;base64,/, ''));

describe('tool icons', () => {
  it.each(CATALOG_ROWS.map((row) => [row.name, row] as const))('%s has one inline SVG icon', (_name, row) => {
    const [icon, ...more] = iconsFor(row);
    expect(more).toEqual([]);
    expect(icon).toMatchObject({ mimeType: 'image/svg+xml', sizes: ['any'] });
    const svg = decode(icon!.src);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24"[^>]*>.*<\/svg>$/);
    // Paths and shapes only: nothing a client could run or fetch.
    expect(svg).not.toMatch(/<script|href=|url\(|on\w+=/i);
  });

  // The kind comes from the row's declared tier and access, so a new row needs no picture.
  it.each([
    [{ tier: 'loop' }, 'search'],
    [{ tier: 'silent' }, 'schema'],
    [{ tier: 'gated', access: 'read' }, 'read'],
    [{ tier: 'gated', access: 'propose' }, 'propose'],
    [{ tier: 'gated', access: 'open' }, 'open'],
    [{ tier: 'gated', access: 'stage' }, 'stage'],
    [{ tier: 'gated', access: 'export' }, 'export'],
  ] as const)('%j → %s', (row, kind) => {
    expect(iconKindOf(row as unknown as CatalogRow)).toBe(kind satisfies IconKind);
  });

  it('every kind is used by some row, and kinds look different', () => {
    const kinds = new Set(CATALOG_ROWS.map(iconKindOf));
    expect([...kinds].sort()).toEqual(['export', 'open', 'propose', 'read', 'schema', 'search', 'stage']);
    const pictures = new Set(CATALOG_ROWS.map((row) => iconsFor(row)[0]!.src));
    expect(pictures.size).toBe(kinds.size);
  });
});
