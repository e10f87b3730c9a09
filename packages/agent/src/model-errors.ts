// A failed model call, said for a person: the status, what the provider said, and what to do.
// The AI SDK's stream otherwise says only "An error occurred." (it may not know what is safe to
// show); Toolrow's model is the user's own, so its answer is theirs to read. Never the request body.
import { APICallError, RetryError } from 'ai';

const HINTS: [test: (status: number) => boolean, hint: string][] = [
  [(status) => status === 401 || status === 403, 'Check the key or credentials the model uses.'],
  [(status) => status === 404, 'Check the model id: the server does not know it.'],
  [(status) => status === 429, 'The model is rate-limited: wait a moment and retry.'],
  [(status) => status >= 500, 'The model server failed: retry, and check its log if it keeps failing.'],
  [(status) => status >= 400, 'The model server refused the request.'],
];

/** What the provider said, from its error body (OpenAI's and Bedrock's shapes, or plain text). */
function providerSaid(body: string | undefined): string | undefined {
  const text = body?.trim();
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof parsed.error === 'string'
        ? parsed.error
        : typeof parsed.error?.message === 'string'
          ? parsed.error.message
          : typeof parsed.message === 'string'
            ? parsed.message
            : undefined;
    if (message) return message.slice(0, 400);
  } catch {
    // Not JSON: the text itself.
  }
  return text.slice(0, 400);
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** One readable paragraph for a model call that failed; any other error's own message. */
export function modelErrorText(error: unknown): string {
  const cause = RetryError.isInstance(error) ? (error.lastError ?? error) : error;
  if (APICallError.isInstance(cause)) {
    const where = hostOf(cause.url);
    if (cause.statusCode === undefined) {
      return `Could not reach the model at ${where}: ${cause.message}. Is the model server running, and is its URL right?`;
    }
    const said = providerSaid(cause.responseBody) ?? cause.message;
    const hint = HINTS.find(([test]) => test(cause.statusCode!))?.[1] ?? '';
    return `The model at ${where} answered ${cause.statusCode}: ${said}${/[.!?]$/.test(said) ? '' : '.'} ${hint}`.trim();
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/i.test(message)) {
    const code = (cause as { cause?: { code?: string } })?.cause?.code;
    return `Could not reach the model${code ? ` (${code})` : ''}: ${message}. Is the model server running, and is its URL right?`;
  }
  // Anything else (a tool's refusal, which the stream reports through the same hook) as it is.
  return message;
}
