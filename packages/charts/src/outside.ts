// The first layer against a hostile spec: nothing in it may load, link or open anything, and the
// model never writes the data. The renderer's loader (loader.ts) refuses every load on its own.
import { parseExpression } from 'vega-expression';
import { ChartRefusal } from './refusal.ts';

/** The one `$schema` a spec may name: Vega-Lite's own, the version this package bundles. */
export const VEGA_LITE_SCHEMA_URLS = [
  'https://vega.github.io/schema/vega-lite/v6.json',
  'https://vega.github.io/schema/vega-lite/v5.json',
] as const;

/** Keys that load, link, open or carry data, with what to do instead. */
const REFUSED_KEYS: Readonly<Record<string, string>> = {
  url: 'a chart loads nothing: Toolrow binds the read’s rows as its only data',
  href: 'a chart links nowhere: leave href out',
  usermeta: 'usermeta is not taken: leave it out',
  config: 'config is not taken (it can load fonts and styles): set title, width and height on the spec',
  data: 'the model writes the chart, never its data: Toolrow binds the read’s rows; leave data out and put the numbers in the SQL',
  datasets: 'the model writes the chart, never its data: leave datasets out',
  bind: 'a chart takes no input elements: leave bind out',
  loader: 'a chart loads nothing: leave loader out',
};

/** Keys whose string value is a Vega expression. */
const EXPRESSION_KEYS = new Set(['expr', 'calculate', 'filter', 'test', 'signal', 'update']);

/** Functions an expression may call: arithmetic, text and dates over the row, nothing that reaches out. */
const SAFE_FUNCTIONS = new Set(
  [
    'abs acos asin atan atan2 ceil clamp cos exp floor hypot log max min pow random round sign sin sqrt tan',
    'isArray isBoolean isDate isDefined isNumber isObject isRegExp isString isValid isNaN isFinite',
    'toBoolean toDate toNumber toString if inrange',
    'now datetime date day dayofyear year quarter month week hours minutes seconds milliseconds time timezoneoffset',
    'utc utcdate utcday utcdayofyear utcyear utcquarter utcmonth utcweek utchours utcminutes utcseconds utcmilliseconds',
    'indexof lastindexof join length lower upper pad parseFloat parseInt replace reverse slice split substring trim truncate',
    'format utcFormat timeFormat timeParse utcParse monthFormat monthAbbrevFormat dayFormat dayAbbrevFormat',
    'extent span sequence',
  ].flatMap((group) => group.split(' ')),
);

const SAFE_IDENTIFIERS = new Set([
  'datum',
  'NaN',
  'E',
  'LN2',
  'LN10',
  'LOG2E',
  'LOG10E',
  'PI',
  'SQRT1_2',
  'SQRT2',
  'MIN_VALUE',
  'MAX_VALUE',
]);
const UNSAFE_PROPERTIES = new Set([
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
]);

interface Node {
  type: string;
  [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

/** Refuses an expression that calls or names anything beyond the row's fields and SAFE_FUNCTIONS. */
export function checkExpression(text: string, path: string): void {
  let ast: unknown;
  try {
    ast = parseExpression(text);
  } catch (error) {
    throw new ChartRefusal(
      'expression',
      `The expression at ${path} does not parse (${(error as Error).message}): write it as Vega does, e.g. datum.total > 100.`,
      path,
    );
  }
  const visit = (node: unknown, parent?: Node, key?: string): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, parent, key);
      return;
    }
    if (!isNode(node)) return;
    if (node.type === 'CallExpression') {
      const callee = node.callee as Node;
      const name = callee.type === 'Identifier' ? String(callee.name) : undefined;
      if (!name || !SAFE_FUNCTIONS.has(name))
        throw new ChartRefusal(
          'expression',
          `The expression at ${path} calls ${name ?? 'a computed function'}, which charts do not allow: use arithmetic, text and date functions over datum fields (or compute it in the SQL).`,
          path,
        );
      visit(node.arguments, node, 'arguments');
      return;
    }
    if (node.type === 'Identifier') {
      const isProperty =
        parent?.type === 'MemberExpression' && key === 'property' && parent.computed === false;
      if (!isProperty && !SAFE_IDENTIFIERS.has(String(node.name)))
        throw new ChartRefusal(
          'expression',
          `The expression at ${path} names ${String(node.name)}: an expression may read only datum fields (datum.total).`,
          path,
        );
      if (isProperty && UNSAFE_PROPERTIES.has(String(node.name)))
        throw new ChartRefusal(
          'expression',
          `The expression at ${path} reads ${String(node.name)}, which charts refuse.`,
          path,
        );
      return;
    }
    if (
      node.type === 'Literal' &&
      parent?.type === 'MemberExpression' &&
      UNSAFE_PROPERTIES.has(String(node.value))
    )
      throw new ChartRefusal(
        'expression',
        `The expression at ${path} reads ${String(node.value)}, which charts refuse.`,
        path,
      );
    for (const [childKey, child] of Object.entries(node))
      if (childKey !== 'type') visit(child, node, childKey);
  };
  visit(ast);
}

/**
 * Walks the whole spec the model wrote and refuses what would reach beyond the read: URLs (data,
 * image marks, config), links, user metadata, its own data, input bindings, and expressions that
 * call anything but arithmetic, text and dates. Layer one of two; each holds alone.
 */
export function refuseOutside(spec: unknown): void {
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${path}[${index}]`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const reason = REFUSED_KEYS[key];
      if (reason) throw new ChartRefusal('outside', `${at} is refused: ${reason}.`, at);
      if (key === '$schema') {
        if (path !== '' || !VEGA_LITE_SCHEMA_URLS.includes(child as (typeof VEGA_LITE_SCHEMA_URLS)[number]))
          throw new ChartRefusal(
            'outside',
            `${at} is refused: a chart names Vega-Lite's own schema (${VEGA_LITE_SCHEMA_URLS[0]}) or none.`,
            at,
          );
        continue;
      }
      if (
        (key === 'mark' || key === 'type') &&
        (child === 'image' || (child as { type?: unknown })?.type === 'image')
      )
        throw new ChartRefusal(
          'outside',
          `${at} is refused: image marks load pictures from URLs; use point, bar or text.`,
          at,
        );
      if ((EXPRESSION_KEYS.has(key) || key.endsWith('Expr')) && typeof child === 'string')
        checkExpression(child, at);
      walk(child, at);
    }
  };
  walk(spec, '');
}
