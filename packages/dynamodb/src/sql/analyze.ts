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
  /** The condition it was read from (one of its reference's filters). */
  source?: unknown;
}

/**
 * Where the rows a reference needs come from: only those whose `column` is among the values of
 * another reference's `fromColumn`, taken after that reference's own filters (a join, a semi-join
 * of IN or EXISTS, or a correlated equality of a subquery).
 */
export interface Edge {
  column: string;
  from: number;
  fromColumn: string;
}

/** One place the statement reads a table (FROM orders o: a reference; a self-join has two). */
export interface Ref {
  id: number;
  /** The table as the statement names it. */
  table: string;
  /** How the statement calls this reference (its alias, else the table's name). */
  alias: string;
  /** Conditions on its key and other attributes, from its own filters: what may narrow its read. */
  pins: Pin[];
  /**
   * Top-level conditions that read this reference alone (WHERE and inner-join ON conjuncts; a LEFT
   * JOIN's ON for its right side): every row the statement needs passes them.
   */
  filters: Node[];
  edges: Edge[];
}

export interface Analysis {
  /** Every place the statement reads a table; a reference's id is its index here. */
  refs: Ref[];
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every object in the tree, depth first. */
export function* walk(value: unknown): Generator<Node> {
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

const SUBQUERY_FREE = (node: Node) => ![...walk(node)].some((each) => each.class === 'SUBQUERY');

/**
 * Reads the tree. `columnsOf` names the attributes a table's schema knows (to give an unqualified
 * column to the reference that has it); a CTE's name is never a DynamoDB table inside its scope.
 */
export function analyze(
  tree: unknown,
  columnsOf: (table: string) => readonly string[] | undefined,
): Analysis {
  const cteScopes = cteScopesOf(tree);
  const refs: Ref[] = [];
  /** The references each SELECT's FROM declares, and the SELECT it is nested in. */
  const scopeOf = new Map<Node, { refs: Ref[]; parent: Node | undefined }>();
  /** The SELECT a subquery node's own SELECT sits in, and whether it is a top-level conjunct. */
  const selects: { select: Node; parent: Node | undefined }[] = [];
  const findSelects = (value: unknown, parent: Node | undefined) => {
    if (Array.isArray(value)) {
      for (const item of value) findSelects(item, parent);
      return;
    }
    if (!isNode(value)) return;
    let inner = parent;
    if (value.type === 'SELECT_NODE') {
      selects.push({ select: value, parent });
      inner = value;
    }
    for (const child of Object.values(value)) findSelects(child, inner);
  };
  findSelects(tree, undefined);

  // Declare each SELECT's references, with the conditions that may narrow each.
  const pending: { select: Node; ref: Ref; conditions: Node[] }[] = [];
  for (const { select, parent } of selects) {
    const own: Ref[] = [];
    /** References on the nullable side of an outer join: WHERE does not narrow them. */
    const nullable = new Set<Ref>();
    /** References on the preserved side of a FULL join, or under one: nothing narrows them. */
    const opaque = new Set<Ref>();
    const onConditions: { on: unknown; narrows: Set<Ref> }[] = [];
    const collect = (from: unknown): Ref[] => {
      if (!isNode(from)) return [];
      if (from.type === 'BASE_TABLE' && !from.schema_name && typeof from.table_name === 'string') {
        const name = from.table_name;
        if (cteScopes.get(from)?.has(name.toLowerCase())) return [];
        const ref: Ref = {
          id: refs.length,
          table: name,
          alias: (from.alias as string) || name,
          pins: [],
          filters: [],
          edges: [],
        };
        refs.push(ref);
        own.push(ref);
        return [ref];
      }
      if (from.type === 'JOIN') {
        const left = collect(from.left);
        const right = collect(from.right);
        const kind = from.join_type;
        if (kind === 'INNER')
          onConditions.push({ on: from.condition, narrows: new Set([...left, ...right]) });
        else if (kind === 'LEFT') {
          for (const ref of right) nullable.add(ref);
          onConditions.push({ on: from.condition, narrows: new Set(right) });
        } else if (kind === 'RIGHT') {
          for (const ref of left) nullable.add(ref);
          onConditions.push({ on: from.condition, narrows: new Set(left) });
        } else if (kind !== 'CROSS' || from.condition) for (const ref of [...left, ...right]) opaque.add(ref);
        return [...left, ...right];
      }
      return [];
    };
    collect(select.from_table);
    scopeOf.set(select, { refs: own, parent });
    for (const ref of own) {
      if (opaque.has(ref)) continue;
      const conditions: Node[] = [];
      if (!nullable.has(ref)) conditions.push(...conjuncts(select.where_clause));
      for (const { on, narrows } of onConditions) if (narrows.has(ref)) conditions.push(...conjuncts(on));
      pending.push({ select, ref, conditions });
    }
  }

  /** The reference a column names, seen from a SELECT: its own first, then the enclosing ones. */
  const resolve = (select: Node, names: string[]): { ref: Ref; column: string } | undefined => {
    for (let scope: Node | undefined = select; scope; scope = scopeOf.get(scope)?.parent) {
      const own = scopeOf.get(scope)?.refs ?? [];
      if (names.length >= 2) {
        const qualifier = names.at(-2)!.toLowerCase();
        const ref = own.find((each) => each.alias.toLowerCase() === qualifier);
        if (ref) return { ref, column: names.at(-1)! };
        continue;
      }
      const column = names[0]!;
      const owners = own.filter((each) => (columnsOf(each.table) ?? []).includes(column));
      if (owners.length === 1) return { ref: owners[0]!, column };
      if (owners.length > 1) return undefined;
    }
    return undefined;
  };
  const single = (select: Node, node: unknown) =>
    isNode(node) && node.class === 'COLUMN_REF' ? resolve(select, node.column_names as string[]) : undefined;
  /** The only reference a condition reads, if it reads one (and no subquery). */
  const readsOnly = (select: Node, condition: Node): Ref | undefined => {
    if (!SUBQUERY_FREE(condition)) return undefined;
    let only: Ref | undefined;
    for (const node of walk(condition)) {
      if (node.class !== 'COLUMN_REF') continue;
      const owner = resolve(select, node.column_names as string[]);
      if (!owner || (only && owner.ref !== only)) return undefined;
      only = owner.ref;
    }
    return only;
  };

  for (const { select, ref, conditions } of pending) {
    for (const condition of conditions) {
      if (readsOnly(select, condition) === ref) {
        ref.filters.push(condition);
        const pin = pinOf(condition, (node) => single(select, node));
        if (pin) ref.pins.push({ ...pin, source: condition });
        continue;
      }
      // An equality with a column of another reference: a join (or a correlated one).
      if (condition.class === 'COMPARISON' && condition.type === 'COMPARE_EQUAL') {
        const left = single(select, condition.left);
        const right = single(select, condition.right);
        if (!left || !right || left.ref === right.ref) continue;
        const mine = left.ref === ref ? left : right.ref === ref ? right : undefined;
        const other = mine === left ? right : left;
        if (mine) ref.edges.push({ column: mine.column, from: other.ref.id, fromColumn: other.column });
      }
    }
  }

  // Semi-joins: x IN (SELECT c FROM …) and EXISTS (… correlated …) as top-level conjuncts narrow
  // the outer reference by the inner one (the inner is narrowed by the outer through its own
  // correlated equality, above, or here for IN).
  for (const { select } of selects) {
    for (const condition of conjuncts(select.where_clause)) {
      if (condition.class !== 'SUBQUERY') continue;
      const inner = (condition.subquery as { node?: Node } | undefined)?.node;
      if (inner?.type !== 'SELECT_NODE') continue;
      if (condition.subquery_type === 'ANY' && condition.comparison_type === 'COMPARE_EQUAL') {
        const outer = single(select, condition.child);
        const list = inner.select_list as Node[] | undefined;
        const picked = list?.length === 1 ? single(inner, list[0]) : undefined;
        if (!outer || !picked || !(scopeOf.get(inner)?.refs ?? []).includes(picked.ref)) continue;
        if (!pending.some((each) => each.ref === outer.ref)) continue;
        outer.ref.edges.push({ column: outer.column, from: picked.ref.id, fromColumn: picked.column });
        if (pending.some((each) => each.ref === picked.ref))
          picked.ref.edges.push({ column: picked.column, from: outer.ref.id, fromColumn: outer.column });
      } else if (condition.subquery_type === 'EXISTS') {
        for (const inside of conjuncts(inner.where_clause)) {
          if (inside.class !== 'COMPARISON' || inside.type !== 'COMPARE_EQUAL') continue;
          const left = single(inner, inside.left);
          const right = single(inner, inside.right);
          if (!left || !right) continue;
          const innerRefs = scopeOf.get(inner)?.refs ?? [];
          const [mine, theirs] = innerRefs.includes(left.ref) ? [left, right] : [right, left];
          if (!innerRefs.includes(mine.ref) || innerRefs.includes(theirs.ref)) continue;
          if (!(scopeOf.get(select)?.refs ?? []).includes(theirs.ref)) continue;
          if (!pending.some((each) => each.ref === theirs.ref)) continue;
          theirs.ref.edges.push({ column: theirs.column, from: mine.ref.id, fromColumn: mine.column });
        }
      }
    }
  }

  return { refs };
}

/** A condition that compares a column with constants, as a pin (or none). */
function pinOf(condition: Node, column: (node: unknown) => { column: string } | undefined): Pin | undefined {
  const op = COMPARISON[condition.type as string];
  if (op && condition.class === 'COMPARISON') {
    const left = column(condition.left);
    const right = column(condition.right);
    const constantRight = isNode(condition.right) ? constantOf(condition.right) : undefined;
    const constantLeft = isNode(condition.left) ? constantOf(condition.left) : undefined;
    if (left && constantRight != null) return { column: left.column, op, values: [constantRight] };
    if (right && constantLeft != null) return { column: right.column, op: FLIP[op]!, values: [constantLeft] };
    return undefined;
  }
  if (condition.type === 'COMPARE_IN' && Array.isArray(condition.children)) {
    const [first, ...rest] = condition.children as Node[];
    const owner = column(first);
    const values = rest.map((each) => constantOf(each));
    if (owner && values.every((each) => each != null))
      return { column: owner.column, op: 'in', values: values as Constant[] };
    return undefined;
  }
  if (condition.type === 'COMPARE_BETWEEN') {
    const owner = column(condition.input);
    const lower = isNode(condition.lower) ? constantOf(condition.lower) : undefined;
    const upper = isNode(condition.upper) ? constantOf(condition.upper) : undefined;
    if (owner && lower != null && upper != null)
      return { column: owner.column, op: 'between', values: [lower, upper] };
  }
  return undefined;
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
