import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { modelErrorText } from './model-errors.ts';

const apiError = (statusCode: number | undefined, responseBody?: string) =>
  new APICallError({
    message: 'Bad things',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse',
    requestBodyValues: { prompt: 'the user question' },
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(responseBody !== undefined ? { responseBody } : {}),
  });

describe('modelErrorText', () => {
  it.each([
    [
      apiError(401, '{"message":"The security token included in the request is invalid."}'),
      'answered 401: The security token included in the request is invalid. Check the key or credentials',
    ],
    [
      apiError(404, '{"error":{"message":"model \\"qwen9\\" not found"}}'),
      'answered 404: model "qwen9" not found. Check the model id',
    ],
    [apiError(429, 'Too many requests'), 'answered 429: Too many requests. The model is rate-limited'],
    [apiError(503), 'answered 503: Bad things. The model server failed: retry'],
    [apiError(undefined), 'Could not reach the model at bedrock-runtime.us-east-1.amazonaws.com'],
    [
      new RetryError({
        message: 'x',
        reason: 'maxRetriesExceeded',
        errors: [apiError(500, '{"error":"overloaded"}')],
      }),
      'answered 500: overloaded.',
    ],
    [new TypeError('fetch failed'), 'Could not reach the model'],
    [new Error("Tool 'x' not in active set."), "Tool 'x' not in active set."],
  ])('%#: says what failed and what to do', (error, expected) => {
    const text = modelErrorText(error);
    expect(text).toContain(expected);
    expect(text).not.toContain('the user question');
  });
});
