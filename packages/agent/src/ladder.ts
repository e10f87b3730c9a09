import type { ToolAccess } from '@toolrow/catalog';
import { PERMISSION_MODES, type PermissionMode } from '@toolrow/state';

// The modes live with the profiles in app state; the ladder reads them from there.
export { PERMISSION_MODES, type PermissionMode };

/** Display names, as the UI and the CLI show them. */
export const PERMISSION_MODE_LABELS: Readonly<Record<PermissionMode, string>> = {
  manual: 'Manual',
  auto: 'Auto',
  'full-auto': 'Full Auto',
};

export function isPermissionMode(value: string): value is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value);
}

/** What the ladder says about one gated call: run it now, or ask the user first. */
export type LadderOutcome = 'run' | 'ask';

/**
 * The permission ladder, a pure function of (access class, mode, whether remembered grants cover
 * the call). Manual asks for everything except propose, whose chip is the ask. Auto runs stage and
 * propose, asks once per table for reads (then the grant covers them), and asks for open and
 * export. Full Auto runs everything; writes still only stage, and nothing here can commit.
 */
export function ladder(access: ToolAccess, mode: PermissionMode, coveredByGrant: boolean): LadderOutcome {
  switch (mode) {
    case 'full-auto':
      return 'run';
    case 'manual':
      return access === 'propose' ? 'run' : 'ask';
    case 'auto':
      switch (access) {
        case 'propose':
        case 'stage':
          return 'run';
        case 'read':
          return coveredByGrant ? 'run' : 'ask';
        case 'open':
        case 'export':
          return 'ask';
      }
  }
}

/** A remembered "yes" for gated reads of one table (the tool approved is kept for the record). */
export interface Grant {
  tool: string;
  table: string;
}

/**
 * Whether remembered grants cover a read of these tables: every table must have a grant. The
 * ladder asks "once per table", so a grant made while approving one read tool covers the others.
 * Unknown tables (undefined, or an empty list) are never covered: the user is asked.
 */
export function coveredByGrants(grants: readonly Grant[], tables: readonly string[] | undefined): boolean {
  if (!tables || tables.length === 0) return false;
  const granted = new Set(grants.map((grant) => normaliseTable(grant.table)));
  return tables.every((table) => granted.has(normaliseTable(table)));
}

/** "public.orders", "Orders" and "orders" name the same table for grants. */
export function normaliseTable(table: string): string {
  const lower = table.trim().toLowerCase().replace(/"/g, '');
  return lower.startsWith('public.') ? lower.slice('public.'.length) : lower;
}
