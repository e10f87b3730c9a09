// MCP tool icons (2025-11-25), derived from a tool's row like its annotations: what kind of act
// the tool is (a silent look, a read of rows, a chip, a UI change, a staged write, an export), so
// a new row gets the icon of its kind with nothing to draw. Inline SVG data URIs: nothing is
// fetched, and the same picture in every client.

import type { Icon } from '@modelcontextprotocol/server';
import type { CatalogRow } from '@toolrow/catalog';

/** The kinds of act a row can be, each with its own picture. */
export type IconKind = 'schema' | 'read' | 'propose' | 'open' | 'stage' | 'export' | 'search';

// 24×24 strokes in Toolrow's accent; paths only (no text, scripts or external references).
const PATHS: Record<IconKind, string> = {
  // a table outline: names, columns, statistics
  schema: '<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 9h18M9 9v11"/>',
  // an eye: reads rows
  read: '<path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z"/><circle cx="12" cy="12" r="3"/>',
  // a button with a pointer: a chip the user clicks
  propose: '<rect x="3" y="6" width="18" height="9" rx="4"/><path d="M13 13l3 8 1.5-3.5L21 16z"/>',
  // a window: tabs, filters, views in the app
  open: '<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 8h18"/>',
  // a pencil: a write staged for the user's review
  stage: '<path d="M4 20h4L19 9l-4-4L4 16v4z"/><path d="M13 7l4 4"/>',
  // an arrow into a tray: a file written
  export: '<path d="M12 3v12M7 10l5 5 5-5"/><path d="M4 17v3h16v-3"/>',
  // a magnifier: finding tools
  search: '<circle cx="11" cy="11" r="6"/><path d="M20 20l-4.5-4.5"/>',
};

/** Which picture a row gets. */
export function iconKindOf(row: CatalogRow): IconKind {
  if (row.tier === 'loop') return 'search';
  if (row.tier === 'silent') return 'schema';
  switch (row.access) {
    case 'propose':
      return 'propose';
    case 'open':
      return 'open';
    case 'stage':
      return 'stage';
    case 'export':
      return 'export';
    default:
      return 'read';
  }
}

const svg = (kind: IconKind) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="#0f766e" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${PATHS[kind]}</svg>`;

const ICONS = new Map<IconKind, Icon[]>(
  (Object.keys(PATHS) as IconKind[]).map((kind) => [
    kind,
    Object.freeze([
      Object.freeze({
        src: `data:image/svg+xml;base64,${btoa(svg(kind))}`,
        mimeType: 'image/svg+xml',
        sizes: ['any'],
      }),
    ]) as Icon[],
  ]),
);

/** The icons a tool is listed with, from its row. */
export function iconsFor(row: CatalogRow): Icon[] {
  return ICONS.get(iconKindOf(row))!;
}
