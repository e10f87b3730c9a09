import {
  type Expression,
  Node,
  type NumericLiteral,
  type ObjectLiteralExpression,
  type SourceFile,
  SyntaxKind,
} from 'ts-morph';
import {
  ENGINE_FEATURES,
  type LocatedRow,
  MCP_EXPOSURES,
  type Row,
  RowError,
  RowErrors,
  STAGED_OPERATIONS,
  TOOL_ACCESSES,
  TOOL_TIERS,
  TOOL_VISIBILITIES,
  TOOL_WRITES,
  WORD_LANGUAGES,
} from './row-model.ts';

/** The exported constant that holds the rows. */
export const ROWS_EXPORT_NAME = 'TOOL_ROWS';

type Literal = string | string[] | Record<string, string[]>;

const ENUMS: Partial<Record<keyof Row, readonly string[]>> = {
  visibility: TOOL_VISIBILITIES,
  tier: TOOL_TIERS,
  access: TOOL_ACCESSES,
  mcp: MCP_EXPOSURES,
  writes: TOOL_WRITES,
  stages: STAGED_OPERATIONS,
};
const STRING_FIELDS = [
  'name',
  'description',
  'visibility',
  'tier',
  'access',
  'twin',
  'stages',
  'mcp',
  'writes',
] as const;
const REQUIRED_FIELDS = ['name', 'description', 'keywords', 'visibility', 'tier', 'mcp', 'writes'] as const;
const ARRAY_FIELDS = ['keywords', 'needs', 'verbs', 'formerly', 'asks'] as const;
/** Fields whose value is an object of string arrays, keyed by one of a fixed set (or by an engine id). */
const RECORD_FIELDS: Partial<Record<keyof Row, readonly string[] | 'engine id'>> = {
  words: WORD_LANGUAGES,
  engineWords: 'engine id',
};
const ENGINE_ID = /^[a-z][a-z0-9-]{0,39}$/;
/** Fields that hold any JSON literal (the row's example input). */
const JSON_FIELDS = ['example'] as const;
const KNOWN_FIELDS = new Set<string>([
  ...STRING_FIELDS,
  ...ARRAY_FIELDS,
  ...Object.keys(RECORD_FIELDS),
  ...JSON_FIELDS,
]);
/** Array fields whose every entry must be one of a fixed set. */
const ARRAY_ENUMS: Partial<Record<keyof Row, readonly string[]>> = { needs: ENGINE_FEATURES };

/**
 * Reads the rows from the declaration file's syntax tree. Nothing is imported or evaluated: every
 * value must be a literal, and anything else is an error naming file:line.
 */
export function readRows(sourceFile: SourceFile, displayPath: string): LocatedRow[] {
  const errors: RowError[] = [];
  const at = (node: Node, detail: string) =>
    errors.push(new RowError(displayPath, node.getStartLineNumber(), detail));

  const declaration = sourceFile.getVariableDeclaration(ROWS_EXPORT_NAME);
  if (!declaration?.isExported()) {
    throw new RowErrors([
      new RowError(
        displayPath,
        1,
        `no exported const ${ROWS_EXPORT_NAME} found; the rows must be declared as \`export const ${ROWS_EXPORT_NAME} = [ … ]\``,
      ),
    ]);
  }
  const initializer = declaration.getInitializer();
  const array = initializer ? unwrap(initializer) : undefined;
  if (!array || !Node.isArrayLiteralExpression(array)) {
    throw new RowErrors([
      new RowError(
        displayPath,
        declaration.getStartLineNumber(),
        `${ROWS_EXPORT_NAME} must be an array literal of row objects`,
      ),
    ]);
  }

  const rows: LocatedRow[] = [];
  array.getElements().forEach((element, index) => {
    const label = `row ${index + 1}`;
    if (!Node.isObjectLiteralExpression(element)) {
      at(
        element,
        `${label} must be an object literal; found ${describeKind(element)} (the generator reads rows without running them)`,
      );
      return;
    }
    const row = readRow(element, label, at);
    if (row)
      rows.push({
        row: row.row,
        location: { file: displayPath, line: element.getStartLineNumber(), propertyLines: row.lines },
      });
  });

  if (errors.length > 0) throw new RowErrors(errors);
  return rows;
}

function readRow(
  object: ObjectLiteralExpression,
  label: string,
  at: (node: Node, detail: string) => void,
): { row: Row; lines: Partial<Record<keyof Row, number>> } | undefined {
  const values: Partial<Record<string, Literal>> = {};
  const lines: Partial<Record<keyof Row, number>> = {};
  const nameProperty = object.getProperty('name');
  const nameValue =
    nameProperty && Node.isPropertyAssignment(nameProperty) ? nameProperty.getInitializer() : undefined;
  const rowLabel =
    nameValue && Node.isStringLiteral(nameValue) ? `row '${nameValue.getLiteralValue()}'` : label;
  let ok = true;

  for (const property of object.getProperties()) {
    if (!Node.isPropertyAssignment(property)) {
      at(
        property,
        `${rowLabel}: ${describeKind(property)} is not allowed; write every property as \`key: <literal>\``,
      );
      ok = false;
      continue;
    }
    const nameNode = property.getNameNode();
    if (Node.isComputedPropertyName(nameNode)) {
      at(property, `${rowLabel}: computed property names are not allowed`);
      ok = false;
      continue;
    }
    const key = property.getName().replace(/^['"]|['"]$/g, '');
    if (!KNOWN_FIELDS.has(key)) {
      at(property, `${rowLabel}: unknown property '${key}'; a row has ${[...KNOWN_FIELDS].join(', ')}`);
      ok = false;
      continue;
    }
    if ((JSON_FIELDS as readonly string[]).includes(key)) {
      const json = jsonLiteral(property.getInitializerOrThrow());
      if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) {
        at(
          property,
          `${rowLabel}: '${key}' must be an object literal of JSON values (strings, numbers, booleans, null, arrays, objects): the tool's input on the sample shop`,
        );
        ok = false;
        continue;
      }
      (values as Record<string, unknown>)[key] = json;
      lines[key as keyof Row] = property.getStartLineNumber();
      continue;
    }
    const value = literalValue(property.getInitializerOrThrow());
    if (value === undefined) {
      at(
        property,
        `${rowLabel}: '${key}' must be a literal; found ${describeKind(property.getInitializerOrThrow())} (the generator reads rows without running them)`,
      );
      ok = false;
      continue;
    }
    const recordKeys = RECORD_FIELDS[key as keyof Row];
    if (recordKeys) {
      const keyOk = (entry: string) =>
        recordKeys === 'engine id' ? ENGINE_ID.test(entry) : recordKeys.includes(entry);
      const expected =
        recordKeys === 'engine id'
          ? "an engine's id (lower case, as its package names it: 'dynamodb')"
          : `one of ${recordKeys.map((v) => `'${v}'`).join(', ')}`;
      const badKey =
        typeof value === 'object' && !Array.isArray(value)
          ? Object.keys(value).find((entry) => !keyOk(entry))
          : undefined;
      const wrong =
        typeof value !== 'object' || Array.isArray(value)
          ? `'${key}' must be an object of string arrays, keyed by ${expected}`
          : badKey !== undefined
            ? `'${key}' has the key '${badKey}'; each key must be ${expected}`
            : undefined;
      if (wrong) {
        at(property, `${rowLabel}: ${wrong}`);
        ok = false;
        continue;
      }
      values[key] = value;
      lines[key as keyof Row] = property.getStartLineNumber();
      continue;
    }
    const isArrayField = (ARRAY_FIELDS as readonly string[]).includes(key);
    if (isArrayField ? !Array.isArray(value) : typeof value !== 'string') {
      at(property, `${rowLabel}: '${key}' must be ${isArrayField ? 'an array of strings' : 'a string'}`);
      ok = false;
      continue;
    }
    const allowedEntries = ARRAY_ENUMS[key as keyof Row];
    const unknownEntry =
      allowedEntries && (value as string[]).find((entry) => !allowedEntries.includes(entry));
    if (allowedEntries && unknownEntry !== undefined) {
      at(
        property,
        `${rowLabel}: '${key}' lists '${unknownEntry}'; each entry must be one of ${allowedEntries.map((v) => `'${v}'`).join(', ')}`,
      );
      ok = false;
      continue;
    }
    const allowed = ENUMS[key as keyof Row];
    if (allowed && !allowed.includes(value as string)) {
      at(
        property,
        `${rowLabel}: '${key}' is '${String(value)}'; it must be one of ${allowed.map((v) => `'${v}'`).join(', ')}`,
      );
      ok = false;
      continue;
    }
    values[key] = value;
    lines[key as keyof Row] = property.getStartLineNumber();
  }

  for (const field of REQUIRED_FIELDS) {
    if (values[field] === undefined && !object.getProperty(field)) {
      at(object, `${rowLabel}: missing required property '${field}'`);
      ok = false;
    }
  }
  if (!ok) return undefined;
  return { row: values as unknown as Row, lines };
}

/** `[…] as const satisfies readonly ToolRow[]` and parentheses wrap the literal; look through them. */
function unwrap(expression: Expression): Expression {
  let current: Expression = expression;
  for (;;) {
    if (
      Node.isAsExpression(current) ||
      Node.isSatisfiesExpression(current) ||
      Node.isParenthesizedExpression(current)
    ) {
      current = current.getExpression();
    } else {
      return current;
    }
  }
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Any JSON value written as a literal, or undefined when something in it is not one. */
function jsonLiteral(node: Expression): Json | undefined {
  const expression = unwrap(node);
  if (Node.isStringLiteral(expression) || Node.isNoSubstitutionTemplateLiteral(expression))
    return expression.getLiteralValue();
  if (Node.isNumericLiteral(expression)) return expression.getLiteralValue();
  if (
    Node.isPrefixUnaryExpression(expression) &&
    expression.getOperatorToken() === SyntaxKind.MinusToken &&
    Node.isNumericLiteral(expression.getOperand())
  )
    return -(expression.getOperand() as NumericLiteral).getLiteralValue();
  if (Node.isTrueLiteral(expression)) return true;
  if (Node.isFalseLiteral(expression)) return false;
  if (Node.isNullLiteral(expression)) return null;
  if (Node.isArrayLiteralExpression(expression)) {
    const items: Json[] = [];
    for (const element of expression.getElements()) {
      const value = jsonLiteral(element as Expression);
      if (value === undefined) return undefined;
      items.push(value);
    }
    return items;
  }
  if (Node.isObjectLiteralExpression(expression)) {
    const object: { [key: string]: Json } = {};
    for (const property of expression.getProperties()) {
      if (!Node.isPropertyAssignment(property) || Node.isComputedPropertyName(property.getNameNode()))
        return undefined;
      const value = jsonLiteral(property.getInitializerOrThrow());
      if (value === undefined) return undefined;
      object[property.getName().replace(/^['"]|['"]$/g, '')] = value;
    }
    return object;
  }
  return undefined;
}

/** A string, an array of strings, or undefined when the value is not a plain literal. */
function literalValue(node: Expression): Literal | undefined {
  const expression = unwrap(node);
  if (Node.isStringLiteral(expression) || Node.isNoSubstitutionTemplateLiteral(expression)) {
    return expression.getLiteralValue();
  }
  // 'long ' + 'description': plain literal concatenation, folded here.
  if (
    Node.isBinaryExpression(expression) &&
    expression.getOperatorToken().getKind() === SyntaxKind.PlusToken
  ) {
    const left = literalValue(expression.getLeft());
    const right = literalValue(expression.getRight());
    return typeof left === 'string' && typeof right === 'string' ? left + right : undefined;
  }
  if (Node.isArrayLiteralExpression(expression)) {
    const items: string[] = [];
    for (const element of expression.getElements()) {
      const value = literalValue(element as Expression);
      if (typeof value !== 'string') return undefined;
      items.push(value);
    }
    return items;
  }
  // { 'zh-Hans': ['导出'], ja: […] }: an object whose every value is an array of strings.
  if (Node.isObjectLiteralExpression(expression)) {
    const record: Record<string, string[]> = {};
    for (const property of expression.getProperties()) {
      if (!Node.isPropertyAssignment(property) || Node.isComputedPropertyName(property.getNameNode()))
        return undefined;
      const value = literalValue(property.getInitializerOrThrow());
      if (!Array.isArray(value)) return undefined;
      record[property.getName().replace(/^['"]|['"]$/g, '')] = value;
    }
    return record;
  }
  return undefined;
}

function describeKind(node: Node): string {
  switch (node.getKind()) {
    case SyntaxKind.Identifier:
      return `the identifier '${node.getText()}'`;
    case SyntaxKind.SpreadElement:
    case SyntaxKind.SpreadAssignment:
      return 'a spread';
    case SyntaxKind.ShorthandPropertyAssignment:
      return `the shorthand property '${node.getText()}'`;
    case SyntaxKind.MethodDeclaration:
      return 'a method';
    case SyntaxKind.CallExpression:
      return `a call (${truncate(node.getText())})`;
    case SyntaxKind.TemplateExpression:
      return 'a template with substitutions';
    default:
      return `${node.getKindName()} (${truncate(node.getText())})`;
  }
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > 40 ? `${oneLine.slice(0, 37)}...` : oneLine;
}
