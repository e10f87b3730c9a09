// Outputs go to a model: bounded in rows and characters, and plain JSON (no Date, bigint or bytes).

/** The caps every tool output obeys; a context may lower or raise them (see ToolContext.limits). */
export interface ToolLimits {
  /** Rows a read returns when the input names no limit. */
  defaultRows: number;
  /** Most rows any read returns, whatever the input asks. */
  maxRows: number;
  /** Longest text value kept whole; longer ones are clipped with a note of their length. */
  maxValueChars: number;
  /** Rough ceiling on one output's JSON size; rows are dropped (and `truncated` set) past it. */
  maxOutputChars: number;
  /** statement_timeout for gated reads, in ms. */
  statementTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<ToolLimits> = {
  defaultRows: 50,
  maxRows: 500,
  maxValueChars: 300,
  maxOutputChars: 60_000,
  statementTimeoutMs: 15_000,
};

export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters clipped]`;
}

/** A database or app-state value as a model should read it: JSON-safe, long text clipped. */
export function modelValue(value: unknown, maxChars: number): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return clipText(value, maxChars);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') {
    // Keep exactness: a bigint past 2^53 would silently round as a number.
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Uint8Array) {
    const hex = Buffer.from(value.subarray(0, Math.ceil(maxChars / 2))).toString('hex');
    return value.length * 2 > hex.length ? `\\x${hex}… [${value.length} bytes]` : `\\x${hex}`;
  }
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => modelValue(item, maxChars));
  if (typeof value === 'object') {
    const json = JSON.stringify(value, (_key, inner: unknown) =>
      typeof inner === 'bigint' ? inner.toString() : inner,
    );
    if (json !== undefined && json.length > maxChars) return clipText(json, maxChars);
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, modelValue(inner, maxChars)]),
    );
  }
  return String(value);
}

export function modelRow(row: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = modelValue(value, maxChars);
  return out;
}

export interface BoundedRows {
  rows: Record<string, unknown>[];
  /** True when rows were left out (by the row cap or the output size). */
  truncated: boolean;
}

/**
 * Shapes rows for a model: values made JSON-safe and clipped, then rows dropped from the end until
 * the JSON fits maxOutputChars. `truncated` is set when anything was left out, including by the caller.
 */
export function boundRows(
  rows: readonly Record<string, unknown>[],
  limits: Pick<ToolLimits, 'maxValueChars' | 'maxOutputChars'>,
  alreadyTruncated = false,
): BoundedRows {
  const shaped: Record<string, unknown>[] = [];
  let size = 2;
  for (const row of rows) {
    const next = modelRow(row, limits.maxValueChars);
    const length = JSON.stringify(next).length + 1;
    if (size + length > limits.maxOutputChars && shaped.length > 0) return { rows: shaped, truncated: true };
    shaped.push(next);
    size += length;
  }
  return { rows: shaped, truncated: alreadyTruncated };
}

/** At most `max` items of a list, and whether some were left out. */
export function capList<T>(items: readonly T[], max: number): { items: T[]; truncated: boolean } {
  return { items: items.slice(0, max), truncated: items.length > max };
}
