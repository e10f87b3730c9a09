import { APP_SCHEMA } from '@toolrow/datasource';
import type { ToolContext } from './context.ts';
import { checkReadOnlySql } from './sql-guard.ts';

/**
 * The tables a tool call concerns, for remembered grants ("Auto asks once per table"): the `table`
 * field, or the tables a `sql` field reads (a CTE's name left out only where that CTE is in scope,
 * see ReadOnlyStatement.tablesRead). With a context, names are resolved
 * through the schema cache to "schema.table"; unknown names are kept as written. undefined when the
 * call names no table or its SQL does not parse: the ladder should then ask.
 */
export async function tablesOfCall(input: unknown, ctx?: ToolContext): Promise<string[] | undefined> {
  if (input === null || typeof input !== 'object') return undefined;
  const fields = input as Record<string, unknown>;
  const names: string[] = [];
  if (typeof fields.table === 'string') names.push(fields.table);
  if (typeof fields.sql === 'string') {
    try {
      // The engine's own parser names the tables where it brings one (DynamoDB: DuckDB's), so a
      // grant is keyed by the table it reads, in that engine's spelling.
      const queries = ctx?.source.queries;
      if (queries?.check) {
        names.push(...(await queries.check(fields.sql)).tables);
      } else {
        const statement = await checkReadOnlySql(fields.sql, { hiddenSchemas: [APP_SCHEMA] });
        for (const relation of statement.tablesRead)
          names.push(relation.schema ? `${relation.schema}.${relation.name}` : relation.name);
      }
    } catch {
      return undefined;
    }
  }
  if (names.length === 0) return undefined;
  const resolved = await Promise.all(
    names.map(async (name) => {
      if (!ctx) return name;
      try {
        return (await ctx.source.schema.resolveTable(name)).qualifiedName;
      } catch {
        return name;
      }
    }),
  );
  return [...new Set(resolved)];
}
