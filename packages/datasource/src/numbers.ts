// How a number is written as text wherever exact digits matter (DynamoDB's N, PostgreSQL's numeric
// as the tools return it, the desktop's editors): JSON's grammar. Browser-safe
// (`@toolrow/datasource/numbers`), so the desktop checks what it sends by the same rule.

/** A number as text: an optional minus, digits without leading zeros, a fraction, an exponent. */
export const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Whether `value` is a number written as text (see NUMBER_TEXT). */
export function isNumberText(value: unknown): value is string {
  return typeof value === 'string' && NUMBER_TEXT.test(value);
}
