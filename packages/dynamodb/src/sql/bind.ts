// DuckDB resolves the statement's names, not Toolrow: the statement is bound (EXPLAIN) against
// empty tables shaped like the sampled items, and the plan's table scans say which attributes of
// which table it reads. Aliases, CTE columns, lateral aliases and correlated references never
// become attributes. A name no sampled item has is an attribute only where the binder places it
// (DynamoDB is schemaless: the sample may have missed it); text is text unless the statement binds
// it as a date or an instant.
import type { ColumnInfo, TableInfo } from '@toolrow/datasource';
import { DataSourceError, nearestNames } from '@toolrow/datasource';
import type { Ref } from './analyze.ts';
import type { SqlSession } from './duckdb-process.ts';

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Optimizers off while binding: those that fold constants (a statement's bomb would go off at
 * plan time) or that move a column out of its scan's projection list. */
export const BINDING_SETTINGS: Readonly<Record<string, string>> = {
  disabled_optimizers:
    'expression_rewriter,statistics_propagation,empty_result_pullup,filter_pushdown,join_filter_pushdown,late_materialization,sampling_pushdown,top_n',
};

/** One table as the statement binds it. */
export interface BoundTable {
  table: TableInfo;
  /** Attribute → the column SQL sees (attributes that differ only in case get distinct names). */
  names: Map<string, string>;
  /** The attributes the statement reads (the key alone when it reads none, as COUNT(*)). */
  attributes: string[];
  /** Attributes no sampled item had, placed here by the binder. */
  unsampled: Set<string>;
  /** Text attributes the statement uses as dates or instants. */
  temporal: Set<string>;
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Column names for a table's attributes: SQL names are case-insensitive, so of attributes that
 * differ only in case the first (in order) keeps its name and the others are suffixed _2, _3 …
 */
export function columnNames(attributes: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const attribute of attributes) {
    let name = attribute;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${attribute}_${n}`;
    taken.add(name.toLowerCase());
    names.set(attribute, name);
  }
  return names;
}

const allWhole = (column: ColumnInfo) =>
  [column.min, column.max, ...(column.commonValues ?? []).map((each) => each.value)].every(
    (value) => value === null || value === undefined || /^-?\d+$/.test(String(value)),
  );

/** Whether the sampled values let this text attribute be a date (else an instant). */
const sampledDates = (column: ColumnInfo | undefined) =>
  (column?.commonValues ?? []).length > 0 &&
  (column?.commonValues ?? []).every((each) => ISO_DATE.test(String(each.value)));

/** The type an attribute binds as (a sampled type 'S|N' is text). */
function bindType(column: ColumnInfo | undefined, temporal: boolean): string {
  if (temporal) return sampledDates(column) ? 'DATE' : 'TIMESTAMPTZ';
  const numeric = column && allWhole(column) ? 'BIGINT' : 'DECIMAL(38, 9)';
  switch (column?.type) {
    case 'N':
      return numeric;
    case 'BOOL':
      return 'BOOLEAN';
    case 'B':
      return 'BLOB';
    case 'SS':
      return 'VARCHAR[]';
    case 'NS':
      return `${numeric}[]`;
    case 'BS':
      return 'BLOB[]';
    case 'M':
    case 'L':
    case 'L|M':
      return 'JSON';
    default:
      return 'VARCHAR';
  }
}

/** Text attributes that could be dates or instants: ISO text in the sample, or not sampled. */
function temporalCandidates(table: TableInfo, unsampled: ReadonlySet<string>): string[] {
  const sampled = table.columns
    .filter(
      (column) =>
        column.type === 'S' &&
        (column.commonValues ?? []).length > 0 &&
        (column.commonValues ?? []).every(
          (each) => ISO_TIMESTAMP.test(String(each.value)) || ISO_DATE.test(String(each.value)),
        ),
    )
    .map((column) => column.name);
  return [...sampled, ...unsampled];
}

const TYPE_ERROR =
  /Cannot compare values of type|No function matches|explicit cast|Could not convert|Cannot mix values of type|Cannot (?:add|subtract)|No operator matches/i;

interface Attempt {
  extra: Map<string, Set<string>>;
  temporal: Map<string, Set<string>>;
}

/**
 * Binds the statement in `session` (a sandbox with BINDING_SETTINGS) against the tables' samples.
 * Throws what cannot bind, with DuckDB's words and what to write instead.
 */
export async function bindStatement(
  session: SqlSession,
  statement: string,
  tree: unknown,
  tables: ReadonlyMap<string, TableInfo>,
  aliasOf: (alias: string) => string | undefined,
  keyOf: (table: TableInfo) => string,
): Promise<Map<string, BoundTable>> {
  const attempt: Attempt = {
    extra: new Map([...tables.keys()].map((name) => [name, new Set<string>()])),
    temporal: new Map([...tables.keys()].map((name) => [name, new Set<string>()])),
  };
  // Text compared with a date or an instant the statement typed (ts = TIMESTAMPTZ '…') is one:
  // DuckDB would otherwise compare it as text with the constant's text.
  for (const { qualifier, column } of typedComparisons(tree)) {
    for (const [name, table] of tables) {
      if (qualifier && qualifier !== name.toLowerCase() && aliasOf(qualifier) !== name) continue;
      if (temporalCandidates(table, new Set()).includes(column)) attempt.temporal.get(name)!.add(column);
    }
  }
  const attributesOf = (name: string, state: Attempt) => [
    ...tables.get(name)!.columns.map((column) => column.name),
    ...state.extra.get(name)!,
  ];
  const explain = async (state: Attempt): Promise<unknown> => {
    for (const [name, table] of tables) {
      const names = columnNames(attributesOf(name, state));
      const columns = [...names].map(([attribute, column]) => {
        const info = table.columns.find((each) => each.name === attribute);
        return `${quote(column)} ${bindType(info, state.temporal.get(name)!.has(attribute))}`;
      });
      await session.run(
        `CREATE OR REPLACE TEMP TABLE ${quote(name)} (${columns.join(', ') || '"_" VARCHAR'})`,
      );
    }
    const answer = await session.read(`EXPLAIN (FORMAT JSON) ${statement}`, 10);
    const row = answer.rows[0];
    return JSON.parse(String(row?.[answer.names.indexOf('explain_value')] ?? '[]'));
  };
  const errorOf = async (state: Attempt): Promise<Error | undefined> => {
    try {
      await explain(state);
      return undefined;
    } catch (error) {
      return error as Error;
    }
  };
  const copy = (state: Attempt): Attempt => ({
    extra: new Map([...state.extra].map(([name, set]) => [name, new Set(set)])),
    temporal: new Map([...state.temporal].map(([name, set]) => [name, new Set(set)])),
  });

  let plan: unknown;
  for (let round = 0; ; round++) {
    const error = await errorOf(attempt);
    if (!error) {
      plan = await explain(attempt);
      break;
    }
    const message = error.message;
    if (round >= 24) throw cannotBind(message);
    const unqualified = /Referenced column "((?:[^"]|"")+)" not found/.exec(message)?.[1];
    const qualified = /Table "((?:[^"]|"")+)" does not have a column named "((?:[^"]|"")+)"/.exec(message);
    if (qualified) {
      const table = tables.has(qualified[1]!) ? qualified[1]! : aliasOf(qualified[1]!.toLowerCase());
      if (!table || !tables.has(table)) throw cannotBind(message);
      attempt.extra.get(table)!.add(qualified[2]!);
      continue;
    }
    if (unqualified) {
      // The tables where this name binds, each tried alone.
      const fits: string[] = [];
      for (const name of tables.keys()) {
        const trial = copy(attempt);
        trial.extra.get(name)!.add(unqualified);
        const after = await errorOf(trial);
        if (!after?.message.includes(`Referenced column "${unqualified}" not found`)) fits.push(name);
      }
      if (fits.length === 1) {
        attempt.extra.get(fits[0]!)!.add(unqualified);
        continue;
      }
      if (fits.length > 1)
        throw new DataSourceError(
          'invalid-filter',
          `${unqualified} is in no sampled item of ${fits.join(' or ')}: say which table's attribute it is (${fits.map((name) => `${name}.${unqualified}`).join(' or ')}).`,
        );
      throw cannotBind(message);
    }
    if (TYPE_ERROR.test(message)) {
      // Text first; the attributes the statement uses as dates or instants typed so, and only those.
      const trial = copy(attempt);
      let added = 0;
      for (const name of tables.keys())
        for (const attribute of temporalCandidates(tables.get(name)!, trial.extra.get(name)!))
          if (!trial.temporal.get(name)!.has(attribute)) {
            trial.temporal.get(name)!.add(attribute);
            added++;
          }
      if (added === 0 || (await errorOf(trial))?.message === message) throw cannotBind(message);
      for (const name of tables.keys())
        for (const attribute of [...trial.temporal.get(name)!]) {
          if (attempt.temporal.get(name)!.has(attribute)) continue;
          const without = copy(trial);
          without.temporal.get(name)!.delete(attribute);
          if (!(await errorOf(without))) trial.temporal.get(name)!.delete(attribute);
        }
      attempt.temporal = trial.temporal;
      continue;
    }
    throw cannotBind(message);
  }

  // What each table's scans read, from the plan.
  const read = new Map<string, Set<string>>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const each of node) visit(each);
      return;
    }
    const {
      name,
      children,
      extra_info: info,
    } = node as {
      name?: string;
      children?: unknown[];
      extra_info?: { Table?: string; Projections?: string | string[] };
    };
    if (name === 'SEQ_SCAN' && typeof info?.Table === 'string') {
      const table = tableOfScan(info.Table);
      if (table !== undefined && tables.has(table)) {
        const projections = Array.isArray(info.Projections)
          ? info.Projections
          : info.Projections
            ? [info.Projections]
            : [];
        const set = read.get(table) ?? new Set<string>();
        for (const column of projections) set.add(column);
        read.set(table, set);
      }
    }
    visit(children);
  };
  visit(plan);

  const bound = new Map<string, BoundTable>();
  for (const [name, table] of tables) {
    const names = columnNames(attributesOf(name, attempt));
    const byColumn = new Map([...names].map(([attribute, column]) => [column.toLowerCase(), attribute]));
    const attributes = [...(read.get(name) ?? [])]
      .map((column) => byColumn.get(column.toLowerCase()))
      .filter((attribute): attribute is string => attribute !== undefined);
    bound.set(name, {
      table,
      names,
      attributes: attributes.length > 0 ? [...new Set(attributes)].sort() : [keyOf(table)],
      unsampled: attempt.extra.get(name)!,
      temporal: attempt.temporal.get(name)!,
    });
  }
  return bound;
}

/** Column references compared (=, <, BETWEEN, IN …) with a constant cast to a date or an instant. */
function typedComparisons(tree: unknown): { qualifier?: string; column: string }[] {
  const found: { qualifier?: string; column: string }[] = [];
  const isTemporal = (node: unknown) => {
    const value = node as { class?: string; cast_type?: { id?: string } } | null;
    return value?.class === 'CAST' && /DATE|TIMESTAMP/.test(String(value.cast_type?.id ?? ''));
  };
  const refOf = (node: unknown) => {
    const value = node as { class?: string; column_names?: string[] } | null;
    if (value?.class !== 'COLUMN_REF' || !Array.isArray(value.column_names)) return;
    const names = value.column_names;
    found.push(
      names.length >= 2
        ? { qualifier: names.at(-2)!.toLowerCase(), column: names.at(-1)! }
        : { column: names[0]! },
    );
  };
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const node = value as Record<string, unknown>;
    const sides: unknown[] =
      node.class === 'COMPARISON'
        ? [node.left, node.right]
        : node.type === 'COMPARE_BETWEEN'
          ? [node.input, node.lower, node.upper]
          : node.type === 'COMPARE_IN' || node.type === 'COMPARE_NOT_IN'
            ? ((node.children as unknown[]) ?? [])
            : [];
    if (sides.some(isTemporal)) for (const side of sides) refOf(side);
    for (const child of Object.values(node)) visit(child);
  };
  visit(tree);
  return found;
}

/** `"temp".main."my table"` → my table. */
function tableOfScan(text: string): string | undefined {
  const match = /^"temp"\.main\.(?:"((?:[^"]|"")*)"|(.*))$/.exec(text);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replaceAll('""', '"') : match[2];
}

function cannotBind(message: string): DataSourceError {
  const first = message
    .replace(/\nLINE \d+:[\s\S]*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const hint = /VARCHAR/.test(first)
    ? ' Text attributes are text, as DynamoDB stores them: cast where you mean a date or a number (CAST(created_at AS DATE), CAST(code AS INTEGER)).'
    : '';
  return new DataSourceError('invalid-filter', `The statement cannot run: ${first}${hint}`);
}

/** The attribute nearest to `name` (a misspelling), if one is near. */
export function nearestAttribute(name: string, attributes: readonly string[]): string | undefined {
  return nearestNames(name, attributes, 1)[0];
}

/** Notes for attributes no sampled item has: read if items have them, NULL otherwise. */
export function unsampledNotes(bound: ReadonlyMap<string, BoundTable>): string[] {
  return [...bound.values()].flatMap((binding) =>
    [...binding.unsampled].map((attribute) => {
      const near = nearestAttribute(
        attribute,
        binding.table.columns.map((column) => column.name),
      );
      return `${attribute} is in no sampled item of ${binding.table.name}${near ? ` (did you mean ${near}?)` : ''}: it is read from the items that have it, and NULL elsewhere.`;
    }),
  );
}

/**
 * A date or an instant compares as one in DuckDB and as text in DynamoDB: pins and joins on
 * attributes the statement binds so are DuckDB's alone, never sent to DynamoDB.
 */
export function dropTemporalPins(refs: Ref[], bound: ReadonlyMap<string, BoundTable>): void {
  for (const ref of refs) {
    const binding = bound.get(ref.table);
    if (!binding) continue;
    ref.pins = ref.pins.filter((pin) => !binding.temporal.has(pin.column));
    ref.edges = ref.edges.filter(
      (edge) =>
        !binding.temporal.has(edge.column) &&
        !bound.get(refs[edge.from]!.table)?.temporal.has(edge.fromColumn),
    );
  }
}
