/** Why a chart was not drawn, in words that name the field and the fix. */
export type ChartRefusalCode =
  | 'outside' // the spec would load, link or open something beyond the read's rows
  | 'field' // an encoding names no column of the result
  | 'type' // an encoding's type does not fit the column's values
  | 'points' // more points than a chart draws
  | 'mark' // no such mark
  | 'schema' // Vega-Lite's own schema rejects the spec
  | 'expression'; // an expression calls what charts do not allow

export class ChartRefusal extends Error {
  override readonly name = 'ChartRefusal';
  readonly code: ChartRefusalCode;
  /** Where in the spec, as a dotted path (encoding.y.field). */
  readonly path: string | undefined;
  constructor(code: ChartRefusalCode, message: string, path?: string) {
    super(message);
    this.code = code;
    this.path = path;
  }
}

export function isChartRefusal(error: unknown, code?: ChartRefusalCode): error is ChartRefusal {
  return error instanceof ChartRefusal && (code === undefined || error.code === code);
}
