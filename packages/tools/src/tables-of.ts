import type { ToolContext } from './context.ts';

/**
 * The tables a tool call concerns, for remembered grants ("Auto asks once per table"): the `table`
 * field, or the tables a `sql` field reads as the connection's statement check reads them (a
 * CTE's name left out only where that CTE is in scope). With a context, names are resolved through
 * the schema cache to "schema.table"; unknown names are kept as written. undefined when the call
 * names no table or its statement is refused or does not parse: the ladder should then ask.
 */
export async function tablesOfCall(input: unknown, ctx?: ToolContext): Promise<string[] | undefined> {
  if (input === null || typeof input !== 'object') return undefined;
  const fields = input as Record<string, unknown>;
  const names: string[] = [];
  if (typeof fields.table === 'string') names.push(fields.table);
  if (typeof fields.sql === 'string') {
    try {
      // The engine's own parser names the tables, so a grant is keyed by the table it reads, in
      // that engine's spelling. Without a connection nothing can read the statement: ask.
      if (!ctx) return undefined;
      names.push(...(await ctx.source.queries.check(fields.sql)).tables);
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
