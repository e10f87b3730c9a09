// Every failure leaves the server as JSON `{ error: { message, hint?, code } }` with a fitting status.
import { isDataSourceError, ReadBoundError, StaleEditError, UnknownNameError } from '@toolrow/datasource';
import { isToolError } from '@toolrow/tools';

/** An error this server raises on purpose: the message says what is wrong, the hint how to fix it. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly code: string;
  readonly hint: string | undefined;
  readonly details: unknown;
  constructor(status: number, code: string, message: string, hint?: string, details?: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

export interface ErrorBody {
  error: { message: string; code: string; hint?: string; details?: unknown };
}

const DATASOURCE_STATUS: Record<string, number> = {
  config: 500,
  connection: 503,
  'unknown-table': 404,
  'unknown-column': 400,
  'invalid-filter': 400,
  'invalid-sort': 400,
  'too-large': 413,
  'invalid-key': 400,
  'row-not-found': 404,
  'invalid-change': 400,
  'staging-conflict': 409,
  'export-path': 400,
  export: 500,
  'not-found': 404,
  'already-exists': 409,
  seed: 500,
  // A read refused for writing (a statement check, a read-only client).
  permission: 403,
  // The connection's engine cannot do it (a read-only engine's commit): nothing was changed.
  unsupported: 409,
  'stale-review': 409,
  misuse: 500,
};

const TOOL_STATUS: Record<string, number> = {
  'unknown-tool': 400,
  'invalid-input': 400,
  refused: 403,
  'not-found': 404,
  aborted: 499,
  failed: 500,
};

/** Maps any thrown value to a status and a body a person can act on. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: {
        error: {
          message: error.message,
          code: error.code,
          ...(error.hint ? { hint: error.hint } : {}),
          ...(error.details === undefined ? {} : { details: error.details }),
        },
      },
    };
  }
  if (isDataSourceError(error)) {
    const details =
      error instanceof UnknownNameError
        ? { unknown: error.unknown, suggestions: error.suggestions }
        : error instanceof StaleEditError
          ? { stale: error.columns, current: error.current }
          : error instanceof ReadBoundError
            ? { itemsToRead: error.items, bound: error.bound }
            : undefined;
    return {
      status: DATASOURCE_STATUS[error.code] ?? 500,
      body: { error: { message: error.message, code: error.code, ...(details ? { details } : {}) } },
    };
  }
  if (isToolError(error)) {
    return {
      status: TOOL_STATUS[error.code] ?? 500,
      body: {
        error: {
          message: error.message,
          code: error.code,
          ...(error.issues.length > 0 ? { details: { issues: error.issues } } : {}),
        },
      },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 500,
    body: {
      error: {
        message: `Unexpected server error: ${message}`,
        code: 'internal',
        hint: 'The server log has the details; set TOOLROW_DEBUG=1 for stack traces. If it persists, report it with that log.',
      },
    },
  };
}

export const badRequest = (message: string, hint?: string) =>
  new HttpError(400, 'bad-request', message, hint);
