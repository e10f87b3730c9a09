// What each scope must list, derived from the rows directly (never from the generated table the
// server itself uses), so a wrong table or a wrong server fails the tests.
import { CATALOG_ROWS } from '@toolrow/catalog';

const LEVELS = ['readonly', 'staged', 'full'] as const;

/** The rows a client holding `scope` must see, in row order. */
export function rowsListedAt(scope: string): string[] {
  const level = LEVELS.indexOf(scope.replace('tables:', '') as (typeof LEVELS)[number]);
  if (level < 0) throw new Error(`not a scope: ${scope}`);
  return CATALOG_ROWS.filter((row) => row.mcp !== 'excluded' && LEVELS.indexOf(row.mcp) <= level).map(
    (row) => row.name,
  );
}
