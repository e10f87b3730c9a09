// What a SQL statement asks of DynamoDB, read from DuckDB's own parse tree (json_serialize_sql):
// the tables it reads, the conditions that pin a table's keys to constants, and the equalities
// that join one table's key to another's column. Which attributes it reads is DuckDB's binder's
// to say (bind.ts). Nothing here runs
// the statement; the planner decides from this how each table is read.

/** A constant a condition compares with, as the statement wrote it. */
export type Constant = string | number | bigint | boolean | null;

export interface Pin {
  column: string;
  op: 'eq' | 'in' | 'lt' | 'lte' | 'gt' | 'gte' | 'between';
  values: Constant[];
}

export interface JoinEdge {
  column: string;
  /** The other table's name and column: this table's column equals it. */
  other: { table: string; column: string };
}

export interface TableUse {
  /** The table as the statement names it (FROM orders). */
  table: string;
  /** Every reference (alias) is pinned by these, or `undefined` when one reference is not. */
  pins: Pin[] | undefined;
  joins: JoinEdge[];
  /** The attributes read: filled from DuckDB's binding (bind.ts), not guessed from names here. */
  columns: Set<string> | 'all';
}

export interface Analysis {
  tables: Map<string, TableUse>;
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every object in the tree, depth first. */
function* walk(value: unknown): Generator<Node> {
  if (Array.isArray(value)) for (const item of value) yield* walk(item);
  else if (isNode(value)) {
    yield value;
    for (const child of Object.values(value)) yield* walk(child);
  }
}

/** The value of a constant node: DECIMAL carries its scale. */
export function constantOf(node: Node): Constant | undefined {
  if (node.class !== 'CONSTANT') {
    // A negative number is a function of a constant in some versions: -(5).
    if (
      node.class === 'FUNCTION' &&
      node.function_name === '-' &&
      Array.isArray(node.children) &&
      node.children.length === 1
    ) {
      const inner = constantOf(node.children[0] as Node);
      return typeof inner === 'number' || typeof inner === 'bigint'
        ? -inner
        : typeof inner === 'string' && /^\d/.test(inner)
          ? `-${inner}`
          : undefined;
    }
    if (node.class === 'CAST' && isNode(node.child)) {
      // A cast constant pins only as the type it is cast to: text, or a number's digits.
      const inner = constantOf(node.child);
      const target = String((node.cast_type as { id?: string } | undefined)?.id ?? '');
      if (inner === undefined || inner === null) return inner;
      if (target === 'VARCHAR') return String(inner);
      if (
        /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|DECIMAL|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/.test(target)
      )
        return typeof inner === 'string' && /^-?\d+(\.\d+)?$/.test(inner.trim())
          ? inner.trim()
          : typeof inner === 'boolean'
            ? undefined
            : inner;
      return undefined;
    }
    return undefined;
  }
  const value = node.value as {
    type?: { id?: string; type_info?: { scale?: number } };
    is_null?: boolean;
    value?: unknown;
  };
  if (value.is_null) return null;
  const id = value.type?.id;
  if (id === 'DECIMAL') {
    const scale = value.type?.type_info?.scale ?? 0;
    const digits = String(value.value);
    const negative = digits.startsWith('-');
    const plain = (negative ? digits.slice(1) : digits).padStart(scale + 1, '0');
    const text = scale > 0 ? `${plain.slice(0, -scale)}.${plain.slice(-scale)}` : plain;
    return negative ? `-${text}` : text;
  }
  if (
    typeof value.value === 'string' ||
    typeof value.value === 'number' ||
    typeof value.value === 'bigint' ||
    typeof value.value === 'boolean'
  )
    return value.value;
  return undefined;
}

const FLIP: Record<string, Pin['op']> = { lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte', eq: 'eq' };
const COMPARISON: Record<string, Pin['op']> = {
  COMPARE_EQUAL: 'eq',
  COMPARE_LESSTHAN: 'lt',
  COMPARE_LESSTHANOREQUALTO: 'lte',
  COMPARE_GREATERTHAN: 'gt',
  COMPARE_GREATERTHANOREQUALTO: 'gte',
};

/** The conjuncts of an AND tree (one condition is its own list). */
function conjuncts(node: unknown): Node[] {
  if (!isNode(node)) return [];
  if (node.type === 'CONJUNCTION_AND' && Array.isArray(node.children))
    return node.children.flatMap(conjuncts);
  return [node];
}

/**
 * Reads the tree. `columnsOf` names the attributes a table's schema knows (to give an
 * unqualified column to the tables that have it); `cteNames` are never DynamoDB tables.
 */
export function analyze(
  tree: unknown,
  columnsOf: (table: string) => readonly string[] | undefined,
): Analysis {
  const cteScopes = cteScopesOf(tree);
  const tables = new Map<string, TableUse>();
  const declarations = new Map<string, number>();
  const selects = [...walk(tree)].filter((node) => node.type === 'SELECT_NODE');
  for (const select of selects) {
    // The references this SELECT's FROM declares (not those of nested SELECTs): alias → table.
    const refs = new Map<string, string>();
    const joinConditions: unknown[] = [];
    const leftJoins: { right: Set<string>; on: unknown }[] = [];
    /** Declares the references of a FROM subtree; returns their aliases. */
    const collect = (from: unknown): Set<string> => {
      if (!isNode(from)) return new Set();
      if (from.type === 'BASE_TABLE' && !from.schema_name && typeof from.table_name === 'string') {
        const name = from.table_name;
        if (cteScopes.get(from)?.has(name.toLowerCase())) return new Set();
        const alias = ((from.alias as string) || name).toLowerCase();
        refs.set(alias, name);
        declarations.set(name, (declarations.get(name) ?? 0) + 1);
        if (!tables.has(name)) tables.set(name, { table: name, pins: [], joins: [], columns: new Set() });
        return new Set([alias]);
      }
      if (from.type === 'JOIN') {
        const left = collect(from.left);
        const right = collect(from.right);
        if (from.join_type === 'INNER') joinConditions.push(from.condition);
        else if (from.join_type === 'LEFT') leftJoins.push({ right, on: from.condition });
        return new Set([...left, ...right]);
      }
      return new Set();
    };
    collect(select.from_table);
    if (refs.size === 0) continue;

    const ownerOf = (columnNames: string[]): { table: string; column: string }[] => {
      if (columnNames.length >= 2) {
        const table = refs.get(columnNames[0]!.toLowerCase());
        return table ? [{ table, column: columnNames[1]! }] : [];
      }
      const column = columnNames[0]!;
      return [...new Set(refs.values())]
        .filter((table) => (columnsOf(table) ?? []).includes(column))
        .map((table) => ({ table, column }));
    };
    const single = (node: unknown) => {
      if (!isNode(node) || node.class !== 'COLUMN_REF') return undefined;
      const owners = ownerOf(node.column_names as string[]);
      return owners.length === 1 ? owners[0] : undefined;
    };
    const addPin = (table: string, pin: Pin) => tables.get(table)!.pins?.push(pin);
    /** One conjunct; `allowed`: the aliases it may narrow (a LEFT JOIN's ON narrows its right side only). */
    const read = (condition: Node, allowed?: Set<string>) => {
      const allows = (table: string) => !allowed || [...allowed].some((ref) => refs.get(ref) === table);
      const op = COMPARISON[condition.type as string];
      if (op && condition.class === 'COMPARISON') {
        const left = single(condition.left);
        const right = single(condition.right);
        if (left && right && left.table !== right.table && op === 'eq' && !allowed) {
          tables.get(left.table)!.joins.push({ column: left.column, other: right });
          tables.get(right.table)!.joins.push({ column: right.column, other: left });
          return;
        }
        const constantRight = isNode(condition.right) ? constantOf(condition.right) : undefined;
        const constantLeft = isNode(condition.left) ? constantOf(condition.left) : undefined;
        if (left && constantRight != null && allows(left.table))
          addPin(left.table, { column: left.column, op, values: [constantRight] });
        else if (right && constantLeft != null && allows(right.table))
          addPin(right.table, { column: right.column, op: FLIP[op]!, values: [constantLeft] });
        return;
      }
      if (condition.type === 'COMPARE_IN' && Array.isArray(condition.children)) {
        const [column, ...rest] = condition.children as Node[];
        const owner = single(column);
        const values = rest.map((each) => constantOf(each));
        if (owner && allows(owner.table) && values.every((each) => each != null))
          addPin(owner.table, { column: owner.column, op: 'in', values: values as Constant[] });
        return;
      }
      if (condition.type === 'COMPARE_BETWEEN') {
        const owner = single(condition.input);
        const lower = isNode(condition.lower) ? constantOf(condition.lower) : undefined;
        const upper = isNode(condition.upper) ? constantOf(condition.upper) : undefined;
        if (owner && allows(owner.table) && lower != null && upper != null)
          addPin(owner.table, { column: owner.column, op: 'between', values: [lower, upper] });
      }
    };
    for (const condition of conjuncts(select.where_clause)) read(condition);
    for (const condition of joinConditions.flatMap(conjuncts)) read(condition);
    for (const { right, on } of leftJoins) for (const condition of conjuncts(on)) read(condition, right);
  }
  // A table read in more than one place (a self-join, a second subquery) is read whole: pins of
  // one place do not hold for another.
  for (const [name, count] of declarations) if (count > 1) tables.get(name)!.pins = undefined;

  return { tables };
}

/**
 * The CTE names in scope at each node: a WITH names a CTE for its own query (and its CTEs) only,
 * so a table named like a CTE elsewhere in the statement is still a table.
 */
export function cteScopesOf(tree: unknown): Map<Node, ReadonlySet<string>> {
  const scopes = new Map<Node, ReadonlySet<string>>();
  const visit = (value: unknown, scope: ReadonlySet<string>) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, scope);
      return;
    }
    if (!isNode(value)) return;
    const map = (value.cte_map as { map?: { key?: string }[] } | undefined)?.map ?? [];
    const inner =
      map.length > 0
        ? new Set([...scope, ...map.flatMap((entry) => (entry.key ? [entry.key.toLowerCase()] : []))])
        : scope;
    scopes.set(value, inner);
    for (const child of Object.values(value)) visit(child, inner);
  };
  visit(tree, new Set());
  return scopes;
}

/** The table an alias stands for anywhere in the statement. */
export function relationAlias(tree: unknown, alias: string): string | undefined {
  for (const node of walk(tree)) {
    if (node.type === 'BASE_TABLE' && typeof node.alias === 'string' && node.alias.toLowerCase() === alias)
      return node.table_name as string;
  }
  return undefined;
}
