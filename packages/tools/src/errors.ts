import type { z } from 'zod';

export type ToolErrorCode =
  /** The tool name is in no row, or names the loop tool, which the agent implements. */
  | 'unknown-tool'
  /** The input does not match the tool's schema; `issues` names each field. */
  | 'invalid-input'
  /** The SQL guard or a boundary refused the call (a write, a path outside the exports folder, …). */
  | 'refused'
  /** A table, column, row, spec, export or attachment that does not exist. */
  | 'not-found'
  /** The call was cancelled through the context's AbortSignal. */
  | 'aborted'
  /** Anything else: the database said no, a conflict, a bug. The message says what happened. */
  | 'failed';

/** One problem with a tool input: where it is (`path`, e.g. "filter.and[0].op") and what was expected. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * The one error type invokeTool throws. `message` is written for the model (what is wrong and
 * how to fix it) and is what the agent and the MCP server show as the tool's error text.
 */
export class ToolError extends Error {
  override name = 'ToolError';
  readonly code: ToolErrorCode;
  readonly tool: string;
  readonly issues: readonly InputIssue[];
  constructor(
    code: ToolErrorCode,
    tool: string,
    message: string,
    options?: { cause?: unknown; issues?: readonly InputIssue[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.tool = tool;
    this.issues = options?.issues ?? [];
  }
}

export function isToolError(error: unknown, code?: ToolErrorCode): error is ToolError {
  return error instanceof ToolError && (code === undefined || error.code === code);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 40 ? `a string ("${value.slice(0, 37)}…")` : `"${value}"`;
  if (typeof value === 'number')
    return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  if (typeof value === 'undefined') return 'nothing';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

function article(type: string): string {
  if (type === 'array') return 'an array';
  if (type === 'object' || type === 'record') return 'an object';
  if (type === 'int') return 'an integer';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** "filter.and[0].op" for ['filter', 'and', 0, 'op']. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

type Issue = z.core.$ZodIssue;

// How far into the input an issue got: the union branch that got furthest is the one meant.
function depth(issue: Issue): number {
  if (issue.code !== 'invalid_union') return issue.path.length;
  return issue.path.length + Math.max(0, ...issue.errors.map((branch) => Math.max(0, ...branch.map(depth))));
}

function bestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  let best: readonly Issue[] | undefined;
  let bestScore = -1;
  for (const branch of branches) {
    const score = Math.max(0, ...branch.map(depth));
    if (!best || score > bestScore || (score === bestScore && branch.length < best.length)) {
      best = branch;
      bestScore = score;
    }
  }
  return best;
}

/** One line per issue, naming the field and what it expects, e.g. "table: expected a string, got the integer 5". */
export function describeIssues(
  issues: readonly Issue[],
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): InputIssue[] {
  return issues.flatMap((issue): InputIssue[] => {
    const fullPath = [...prefix, ...issue.path];
    const path = formatPath(fullPath);
    const here = path === '' ? '(input)' : path;
    // Issues carry the value they saw when parsed with reportInput (paths into a preprocessed
    // input, such as a filter in the old form, need not exist in what the caller sent).
    const got = 'input' in issue ? issue.input : valueAt(input, fullPath);
    switch (issue.code) {
      case 'invalid_type': {
        if (got === undefined && issue.expected !== 'undefined') {
          return [{ path: here, message: `${here}: required (${article(issue.expected)}) but missing` }];
        }
        return [
          { path: here, message: `${here}: expected ${article(issue.expected)}, got ${describeValue(got)}` },
        ];
      }
      case 'invalid_value':
        return [
          {
            path: here,
            message: `${here}: expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}, got ${describeValue(got)}`,
          },
        ];
      case 'unrecognized_keys':
        return issue.keys.map((key) => {
          const where = path === '' ? key : `${path}.${key}`;
          return {
            path: where,
            message: `${where}: unknown field; remove it (check the spelling against the schema)`,
          };
        });
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? 'at least' : 'at most';
        const limit = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
        const unit =
          issue.origin === 'string'
            ? ' characters'
            : issue.origin === 'array' || issue.origin === 'set'
              ? ' items'
              : '';
        return [
          { path: here, message: `${here}: expected ${bound} ${limit}${unit}, got ${describeValue(got)}` },
        ];
      }
      case 'invalid_union': {
        // Say what the branch that got furthest wanted, rather than "invalid input".
        const branch = bestBranch(issue.errors);
        const nested = branch ? describeIssues(branch, input, fullPath) : [];
        if (nested.length > 0) return nested;
        return [{ path: here, message: `${here}: ${issue.message}` }];
      }
      default:
        return [{ path: here, message: `${here}: ${issue.message}` }];
    }
  });
}
