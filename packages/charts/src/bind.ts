// The model writes the chart, never the data: a compact Vega-Lite spec is checked against the
// read's columns and values, the read's rows are bound as its only data, and the whole is checked
// against Vega-Lite's own schema. Every refusal names the field and the fix.
import { nearestNames } from '@toolrow/datasource/names';
import { refuseOutside, VEGA_LITE_SCHEMA_URLS } from './outside.ts';
import { ChartRefusal } from './refusal.ts';
import { checkAgainstVegaLiteSchema, vegaLiteMarks } from './schema.ts';

/** A chart draws at most this many rows of its read: past it, aggregate in the SQL. */
export const MAX_CHART_POINTS = 5000;

/** Marks drawn here: Vega-Lite's own, but those that load (image) or need map data (geoshape). */
export function chartMarks(): readonly string[] {
  return vegaLiteMarks().filter((mark) => mark !== 'image' && mark !== 'geoshape');
}

/** The rows of a read, as the read path returns them. */
export interface ChartRows {
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** The read stopped before its end (a bound, not the statement): the chart would mislead. */
  readonly truncated?: boolean;
}

export interface BindOptions {
  readonly maxPoints?: number;
}

/** A spec ready to draw: Vega-Lite, the read's rows as inline data, checked. */
export interface BoundChart {
  /** The whole Vega-Lite spec, data included. */
  readonly spec: Record<string, unknown>;
  /** Rows bound as data. */
  readonly points: number;
  readonly mark: string;
  /** Channel → column, for the person and the model ("x: month, y: revenue"). */
  readonly encodings: Readonly<Record<string, string>>;
  /** One line for the model and for the image's alt text. */
  readonly summary: string;
}

type Json = Record<string, unknown>;

const EXACT_SUFFIX = ' (as stored)';
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE_TEXT = /^\d{4}-\d{2}(-\d{2})?([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type ValueKind = 'number' | 'number-text' | 'date' | 'text' | 'boolean' | 'empty';

/** What a column holds, from its values: numbers (or exact decimals as text), dates, text. */
function kindOf(rows: ChartRows['rows'], column: string): { kind: ValueKind; example?: unknown } {
  let kind: ValueKind = 'empty';
  for (const row of rows) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const next: ValueKind =
      typeof value === 'number' || typeof value === 'bigint'
        ? 'number'
        : typeof value === 'boolean'
          ? 'boolean'
          : value instanceof Date
            ? 'date'
            : typeof value === 'string' && NUMBER_TEXT.test(value.trim())
              ? 'number-text'
              : typeof value === 'string' && DATE_TEXT.test(value.trim())
                ? 'date'
                : 'text';
    if (next === 'text' || next === 'boolean') return { kind: next, example: value };
    if (kind === 'empty' || kind === next) kind = next;
    else if (kind === 'number' && next === 'number-text') kind = 'number-text';
    else if (!(kind === 'number-text' && next === 'number')) return { kind: 'text', example: value };
  }
  return { kind };
}

/** Vega-Lite reads dots and brackets in a field as paths: a column named so is escaped. */
function escapeField(name: string): string {
  return name.replace(/([.[\]\\])/g, '\\$1');
}

function encodingsOf(spec: Json): Array<{ at: string; encoding: Json; mark: unknown }> {
  const found: Array<{ at: string; encoding: Json; mark: unknown }> = [];
  if (isObject(spec.encoding)) found.push({ at: 'encoding', encoding: spec.encoding, mark: spec.mark });
  if (Array.isArray(spec.layer))
    spec.layer.forEach((layer, index) => {
      if (isObject(layer) && isObject(layer.encoding))
        found.push({
          at: `layer[${index}].encoding`,
          encoding: layer.encoding,
          mark: layer.mark ?? spec.mark,
        });
    });
  return found;
}

function markName(mark: unknown): string | undefined {
  if (typeof mark === 'string') return mark;
  if (isObject(mark) && typeof mark.type === 'string') return mark.type;
  return undefined;
}

function checkMarks(spec: Json): string {
  const known = chartMarks();
  const marks: Array<{ at: string; mark: unknown }> = [];
  if (spec.mark !== undefined) marks.push({ at: 'mark', mark: spec.mark });
  if (Array.isArray(spec.layer))
    spec.layer.forEach((layer, index) => {
      if (isObject(layer) && layer.mark !== undefined)
        marks.push({ at: `layer[${index}].mark`, mark: layer.mark });
    });
  if (marks.length === 0)
    throw new ChartRefusal(
      'mark',
      `The spec has no mark: add one of ${known.join(', ')} (mark: 'bar').`,
      'mark',
    );
  for (const { at, mark } of marks) {
    const name = markName(mark);
    if (name === undefined || !known.includes(name)) {
      const near = name ? nearestNames(name, known, 1) : [];
      throw new ChartRefusal(
        'mark',
        `${at} '${String(name ?? JSON.stringify(mark))}' is not a mark${near.length > 0 ? `: did you mean '${near[0]}'?` : '.'} The marks are ${known.join(', ')}.`,
        at,
      );
    }
  }
  return markName(marks[0]?.mark) as string;
}

/** Names the spec's transforms make (as: …), which encodings may use beside the columns. */
function madeNames(spec: Json): { names: Set<string>; open: boolean } {
  const names = new Set<string>();
  let open = false;
  const transforms = [
    spec.transform,
    ...(Array.isArray(spec.layer) ? spec.layer.map((l) => (isObject(l) ? l.transform : undefined)) : []),
  ];
  for (const list of transforms) {
    if (!Array.isArray(list)) continue;
    for (const transform of list) {
      if (!isObject(transform)) continue;
      // fold and pivot make names from values: their fields cannot be known before the read.
      if ('fold' in transform || 'pivot' in transform) open = true;
      const add = (value: unknown) => {
        if (typeof value === 'string') names.add(value);
        else if (Array.isArray(value)) for (const item of value) add(item);
      };
      add(transform.as);
      for (const key of ['aggregate', 'window', 'joinaggregate'] as const) {
        const items = transform[key];
        if (Array.isArray(items)) for (const item of items) if (isObject(item)) add(item.as);
      }
    }
  }
  return { names, open };
}

function unknownField(field: string, at: string, columns: readonly string[]): ChartRefusal {
  const near = nearestNames(field, columns, 1);
  return new ChartRefusal(
    'field',
    `'${field}' is not a column of the result${near.length > 0 ? `: did you mean '${near[0]}'?` : '.'} The columns are ${columns.join(', ')}.`,
    at,
  );
}

const TYPE_OF_KIND: Record<ValueKind, string> = {
  number: 'quantitative',
  'number-text': 'quantitative',
  date: 'temporal',
  text: 'nominal',
  boolean: 'nominal',
  empty: 'nominal',
};

/**
 * What can be checked before the read: nothing reaches outside, and the marks exist. Returns the
 * first mark (a propose chip's label says it).
 */
export function checkChartShape(input: unknown): string {
  if (!isObject(input))
    throw new ChartRefusal(
      'schema',
      `A chart spec is a JSON object ({"mark": "bar", "encoding": {…}}), not ${Array.isArray(input) ? 'an array' : typeof input}.`,
    );
  refuseOutside(input);
  return checkMarks(input);
}

/**
 * Checks a model's compact spec against the read and binds the read's rows as its only data.
 * Throws ChartRefusal naming the field and the fix.
 */
export function bindChart(input: unknown, result: ChartRows, options: BindOptions = {}): BoundChart {
  const mark = checkChartShape(input);
  const maxPoints = options.maxPoints ?? MAX_CHART_POINTS;
  if (result.rows.length > maxPoints || result.truncated)
    throw new ChartRefusal(
      'points',
      `The read returned more than ${maxPoints} rows, more points than a chart draws. Aggregate in the SQL (GROUP BY a category, or date_trunc('month', …) for time) or narrow it with WHERE; nothing is sampled.`,
    );
  const spec = structuredClone(input as Json);
  const columns = result.columns;
  const made = madeNames(spec);
  const exactCopies = new Set<string>();
  const encodings: Record<string, string> = {};
  for (const { at, encoding } of encodingsOf(spec)) {
    for (const [channel, definition] of Object.entries(encoding)) {
      const definitions = Array.isArray(definition) ? definition : [definition];
      definitions.forEach((def, index) => {
        if (!isObject(def) || typeof def.field !== 'string') return;
        const path = `${at}.${channel}${Array.isArray(definition) ? `[${index}]` : ''}.field`;
        const field = def.field;
        const isColumn = columns.includes(field);
        if (!isColumn && !made.names.has(field) && !made.open) throw unknownField(field, path, columns);
        encodings[channel] ??= field;
        if (!isColumn) return;
        const { kind, example } = kindOf(result.rows, field);
        def.type ??= def.aggregate || def.bin ? 'quantitative' : TYPE_OF_KIND[kind];
        const counts =
          def.aggregate === 'count' ||
          def.aggregate === 'distinct' ||
          def.aggregate === 'valid' ||
          def.aggregate === 'missing';
        if (def.type === 'quantitative' && !counts && (kind === 'text' || kind === 'boolean'))
          throw new ChartRefusal(
            'type',
            `${path} '${field}' holds ${kind} (e.g. ${JSON.stringify(example)}), not numbers, so it cannot be quantitative: encode it as nominal, count it (aggregate: 'count'), or cast it in the SQL.`,
            path,
          );
        if (def.type === 'temporal' && kind === 'text')
          throw new ChartRefusal(
            'type',
            `${path} '${field}' holds text (e.g. ${JSON.stringify(example)}), not dates, so it cannot be temporal: encode it as nominal or ordinal, or cast it to a date in the SQL.`,
            path,
          );
        if (kind === 'number-text') exactCopies.add(field);
        def.field = escapeField(field);
      });
    }
  }
  // Exact decimals stay exact where a person reads them: the tooltip shows the stored text; the
  // scale takes its number.
  const values = result.rows.map((row) => {
    const bound: Json = {};
    for (const column of columns) {
      const value = row[column];
      if (exactCopies.has(column) && typeof value === 'string') {
        bound[column] = Number(value);
        bound[`${column}${EXACT_SUFFIX}`] = value;
      } else
        bound[column] =
          typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value;
    }
    return bound;
  });
  const single = spec.layer === undefined && spec.facet === undefined && spec.concat === undefined;
  const { $schema: _written, ...written } = spec;
  const full: Json = {
    $schema: VEGA_LITE_SCHEMA_URLS[0],
    ...(single ? { width: 560, height: 320 } : {}),
    ...written,
    data: { values },
  };
  // The spec as written first, so a refusal names the model's field, not a tooltip made from it.
  checkAgainstVegaLiteSchema(full);
  for (const { encoding } of encodingsOf(full)) {
    if (encoding.tooltip !== undefined) continue;
    const shown = Object.entries(encoding).flatMap(([, def]) =>
      isObject(def) && typeof def.field === 'string' ? [def] : [],
    );
    encoding.tooltip = shown.map((def) => {
      const raw = String(def.field).replace(/\\(.)/g, '$1');
      if (exactCopies.has(raw) && !def.aggregate)
        return { field: escapeField(`${raw}${EXACT_SUFFIX}`), type: 'nominal', title: raw };
      return {
        field: def.field,
        type: def.type,
        ...(def.aggregate ? { aggregate: def.aggregate } : {}),
        ...(def.timeUnit ? { timeUnit: def.timeUnit } : {}),
        title: raw,
      };
    });
  }
  checkAgainstVegaLiteSchema(full);
  const described = Object.entries(encodings)
    .map(([channel, field]) => `${channel}: ${field}`)
    .join(', ');
  return {
    spec: full,
    points: values.length,
    mark,
    encodings,
    summary: `A ${mark} chart${described ? ` (${described})` : ''} of ${values.length} row${values.length === 1 ? '' : 's'}.`,
  };
}
