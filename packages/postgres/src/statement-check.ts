// PostgreSQL's QueryRunner.check: the guard (PostgreSQL's own grammar) and, for validateQuery, the
// names the statement uses against the schema cache.
import {
  APP_SCHEMA,
  type CheckedStatement,
  isDataSourceError,
  nearestNames,
  resolveTableIn,
  type SchemaCache,
  type StatementCheckOptions,
  type TableInfo,
} from '@toolrow/datasource';
import { checkReadOnlySql, type ReadOnlyStatement } from './sql-guard.ts';

const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema']);
const SYSTEM_COLUMNS = new Set(['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid']);

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Checks the tables and columns a statement names against the schema cache; returns the problems found. */
export function checkAgainstSchema(
  statement: ReadOnlyStatement,
  tables: readonly TableInfo[],
): { problems: string[]; tables: TableInfo[] } {
  const snapshot = { tables: [...tables], refreshedAt: new Date(0) };
  const problems: string[] = [];
  const byAlias = new Map<string, TableInfo>();
  const used: TableInfo[] = [];
  const ctes = new Set(statement.cteNames);
  let opaqueSources = statement.hasDerivedSources;
  for (const relation of statement.relations) {
    if (!relation.schema && ctes.has(relation.name)) {
      opaqueSources = true;
      continue;
    }
    if (
      (relation.schema && SYSTEM_SCHEMAS.has(relation.schema)) ||
      (!relation.schema && relation.name.startsWith('pg_'))
    ) {
      opaqueSources = true;
      continue;
    }
    const typed = relation.schema
      ? `${quoted(relation.schema)}.${quoted(relation.name)}`
      : quoted(relation.name);
    try {
      const table = resolveTableIn(snapshot, typed);
      used.push(table);
      byAlias.set(relation.alias ?? relation.name, table);
      if (!relation.alias) byAlias.set(table.name, table);
    } catch (error) {
      if (!isDataSourceError(error)) throw error;
      const shown = relation.schema ? `${relation.schema}.${relation.name}` : relation.name;
      const suggestions = nearestNames(
        relation.name,
        tables.map((table) => table.name),
      );
      problems.push(
        `Unknown table '${shown}'.${suggestions.length > 0 ? ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?` : ''}`,
      );
    }
  }
  const opaqueAliases = new Set([...statement.derivedAliases, ...statement.cteNames]);
  const outputs = new Set(statement.outputNames);
  for (const ref of statement.columnRefs) {
    if (ref.column === '*' || SYSTEM_COLUMNS.has(ref.column)) continue;
    if (ref.qualifier.length === 0) {
      if (used.some((table) => table.columns.some((column) => column.name === ref.column))) continue;
      if (outputs.has(ref.column) || opaqueSources || used.length === 0) continue;
      const known = [...new Set(used.flatMap((table) => table.columns.map((column) => column.name)))];
      const suggestions = nearestNames(ref.column, known);
      problems.push(
        `Unknown column '${ref.column}' (not in ${used.map((table) => table.qualifiedName).join(', ')}).${suggestions.length > 0 ? ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?` : ''}`,
      );
      continue;
    }
    if (ref.qualifier.length > 2) continue;
    const qualifier = ref.qualifier.join('.');
    const table =
      ref.qualifier.length === 1
        ? byAlias.get(ref.qualifier[0]!)
        : used.find(
            (candidate) => candidate.schema === ref.qualifier[0] && candidate.name === ref.qualifier[1],
          );
    if (!table) {
      if (
        opaqueAliases.has(ref.qualifier[0]!) ||
        (ref.qualifier.length === 2 && SYSTEM_SCHEMAS.has(ref.qualifier[0]!))
      )
        continue;
      if (ref.qualifier.length === 1 && ref.qualifier[0]!.startsWith('pg_')) continue;
      problems.push(
        `'${qualifier}.${ref.column}' names '${qualifier}', which is no table or alias in the FROM clause.`,
      );
      continue;
    }
    if (!table.columns.some((column) => column.name === ref.column)) {
      const suggestions = nearestNames(
        ref.column,
        table.columns.map((column) => column.name),
      );
      problems.push(
        `Unknown column '${qualifier}.${ref.column}': ${table.qualifiedName} has no column '${ref.column}'.${suggestions.length > 0 ? ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?` : ''}`,
      );
    }
  }
  return { problems: [...new Set(problems)], tables: [...new Set(used)] };
}

/** The check a PostgreSQL connection's QueryRunner brings (Toolrow's own schema hidden). */
export async function checkPostgresStatement(
  schema: SchemaCache,
  text: string,
  options: StatementCheckOptions = {},
): Promise<CheckedStatement> {
  const statement = await checkReadOnlySql(text, {
    hiddenSchemas: [APP_SCHEMA],
    ...(options.advice ? { advice: options.advice } : {}),
  });
  const tables = statement.tablesRead.map((relation) =>
    relation.schema ? `${relation.schema}.${relation.name}` : relation.name,
  );
  if (!options.names) return { statement: statement.statement, tables };
  const snapshot = await schema.get();
  const checked = checkAgainstSchema(statement, snapshot.tables);
  return {
    statement: statement.statement,
    tables: checked.tables.map((table) => table.qualifiedName),
    ...(checked.problems.length > 0 ? { problems: checked.problems } : {}),
  };
}
