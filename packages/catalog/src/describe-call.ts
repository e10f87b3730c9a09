// One plain-language line for a tool call, for the person who approves or reviews it: the chat's
// approval cards, the MCP inbox, `toolrow chat` and the audit log all show this same line. It is
// built from the input's fields (every tool's inputs use the same few names), so a new row needs
// nothing here.

/** A tool's name as words: 'stageUpdateRows' → 'Stage update rows'. */
export function titleOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const MAX_TEXT = 160;
const MAX_ITEMS = 3;

const OP_WORDS: Readonly<Record<string, string>> = {
  eq: '=',
  neq: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  not_in: 'is none of',
  like: 'matches',
  not_like: 'does not match',
  ilike: 'matches (any case)',
  not_ilike: 'does not match (any case)',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  not_starts_with: 'does not start with',
  ends_with: 'ends with',
  not_ends_with: 'does not end with',
  between: 'is between',
  not_between: 'is not between',
  is_null: 'is empty',
  is_not_null: 'is not empty',
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function clip(text: string, max = MAX_TEXT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const EXACT_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** With values: false, every value a call carries reads '…' (what an audit log may keep). */
export interface DescribeOptions {
  values?: boolean;
}

function valueText(value: unknown, shown: boolean): string {
  if (!shown) return '…';
  // An exact number travels as its text (digits past 2^53, decimals as stored): it reads as one.
  if (typeof value === 'string') return EXACT_NUMBER.test(value) ? value : JSON.stringify(clip(value, 60));
  if (value === null) return 'NULL';
  if (Array.isArray(value))
    return `[${value
      .slice(0, 5)
      .map((item) => valueText(item, shown))
      .join(', ')}${value.length > 5 ? ', …' : ''}]`;
  if (isRecord(value)) return clip(JSON.stringify(value), 60);
  return String(value);
}

function listText<T>(items: readonly T[], each: (item: T) => string): string {
  const text = items.slice(0, MAX_ITEMS).map(each).join('; ');
  return items.length > MAX_ITEMS ? `${text}; and ${items.length - MAX_ITEMS} more` : text;
}

/** `top`: the filter's outermost group, which needs no parentheses ('a and b', not '(a and b)'). */
function conditionText(condition: unknown, shown: boolean, top = false): string {
  if (!isRecord(condition)) return valueText(condition, shown);
  for (const group of ['and', 'or'] as const) {
    const members = condition[group];
    if (Array.isArray(members)) {
      const text = members.map((item) => conditionText(item, shown)).join(` ${group} `);
      return top ? text : `(${text})`;
    }
  }
  if ('not' in condition) return `not ${conditionText(condition.not, shown)}`;
  const { column, op, value } = condition;
  if (typeof column !== 'string') return valueText(condition, shown);
  const word = typeof op === 'string' ? (OP_WORDS[op] ?? op) : '=';
  if (op === 'between' || op === 'not_between') {
    const [low, high] = Array.isArray(value) ? value : [];
    return `${column} ${word} ${valueText(low, shown)} and ${valueText(high, shown)}`;
  }
  return value === undefined ? `${column} ${word}` : `${column} ${word} ${valueText(value, shown)}`;
}

/**
 * A filter as words, the one rendering everywhere a filter is shown (the approval line, the audit
 * log, a tab as the model reads it, the app's tab titles): a condition, a list of conditions (all
 * hold), and/or/not groups, or its JSON text. Text values are quoted, so `status = "paid"` reads
 * the same to a person and a model and a value with spaces stays one.
 */
export function filterText(filter: unknown, shown = true): string {
  let parsed = filter;
  if (typeof filter === 'string') {
    try {
      parsed = JSON.parse(filter);
    } catch {
      return clip(filter);
    }
  }
  if (parsed === undefined || parsed === null) return '';
  const conditions = Array.isArray(parsed) ? parsed : [parsed];
  return conditions.map((item) => conditionText(item, shown, conditions.length === 1)).join(' and ');
}

function keyText(key: unknown, shown: boolean): string {
  if (!isRecord(key)) return `key ${valueText(key, shown)}`;
  return Object.entries(key)
    .map(([column, value]) => `${column} ${valueText(value, shown)}`)
    .join(', ');
}

function sortText(sort: unknown, shown: boolean): string {
  const keys = Array.isArray(sort) ? sort : [sort];
  return keys
    .map((key) =>
      typeof key === 'string'
        ? key
        : isRecord(key) && typeof key.column === 'string'
          ? `${key.column}${key.direction === 'desc' ? ' descending' : ''}`
          : valueText(key, shown),
    )
    .join(', ');
}

/**
 * The call as one line (with `values: false`, its shape only: columns, operators, counts, format): 'Count rows in orders where status = "paid"', 'Stage update rows in
 * orders: id 1 (note → "call back")', 'Start export of orders where … as CSV'. Unknown fields are
 * named with their values; nothing is dropped silently but long text (clipped).
 */
export function describeCall(name: string, input: unknown, options: DescribeOptions = {}): string {
  const shown = options.values !== false;
  const fields = isRecord(input) ? { ...input } : {};
  const take = (field: string): unknown => {
    const value = fields[field];
    delete fields[field];
    return value;
  };
  const parts: string[] = [titleOf(name)];
  const table = take('table');
  if (typeof table === 'string') {
    // 'Open table orders', 'Start export of orders', 'Count rows in orders'.
    const joiner = /table$/i.test(parts[0] as string)
      ? ''
      : /export$/i.test(parts[0] as string)
        ? 'of '
        : 'in ';
    parts.push(`${joiner}${table}`);
  }
  const sql = take('sql');
  if (typeof sql === 'string') parts.push(shown ? `: ${clip(sql)}` : `(SQL of ${sql.length} characters)`);
  const key = take('key');
  if (key !== undefined) parts.push(`at ${keyText(key, shown)}`);
  const filter = take('filter');
  if (filter !== undefined && !(Array.isArray(filter) && filter.length === 0))
    parts.push(`where ${filterText(filter, shown)}`);
  const keys = take('keys');
  if (Array.isArray(keys))
    parts.push(
      `: ${keys.length} row${keys.length === 1 ? '' : 's'}${shown ? ` (${listText(keys, (key) => keyText(key, shown))})` : ''}`,
    );
  const updates = take('updates');
  if (Array.isArray(updates) && !shown) {
    const columns = [
      ...new Set(
        updates.flatMap((update) =>
          isRecord(update) && isRecord(update.values) ? Object.keys(update.values) : [],
        ),
      ),
    ];
    parts.push(
      `: ${updates.length} row${updates.length === 1 ? '' : 's'}${columns.length > 0 ? ` (${columns.join(', ')})` : ''}`,
    );
  } else if (Array.isArray(updates)) {
    parts.push(
      `: ${listText(updates, (update) => {
        if (!isRecord(update)) return valueText(update, shown);
        const values = isRecord(update.values)
          ? Object.entries(update.values)
              .map(([column, value]) => `${column} → ${valueText(value, shown)}`)
              .join(', ')
          : '';
        return `${keyText(update.key, shown)}${values ? ` (${values})` : ''}`;
      })}`,
    );
  }
  const rows = take('rows');
  if (Array.isArray(rows)) parts.push(`: ${rows.length} new row${rows.length === 1 ? '' : 's'}`);
  const columns = take('columns');
  if (Array.isArray(columns) && columns.length > 0) parts.push(`, columns ${columns.join(', ')}`);
  const sort = take('sort');
  if (sort !== undefined && !(Array.isArray(sort) && sort.length === 0))
    parts.push(`, sorted by ${sortText(sort, shown)}`);
  const format = take('format');
  if (typeof format === 'string') parts.push(`as ${format.toUpperCase()}`);
  const path = take('path');
  if (typeof path === 'string') parts.push(`to ${path}`);
  const limit = take('limit');
  if (typeof limit === 'number') parts.push(`, at most ${limit}`);
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`, ${field} ${valueText(value, shown)}`);
  }
  return parts.join(' ').replace(/ ([:,])/g, '$1');
}
