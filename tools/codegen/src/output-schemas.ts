// Each tool's output schema, read from its implementation's `execute` return type with the type
// checker: the result a client validates is the type the compiler already checks the code against,
// so a tool whose output changes changes its schema with it (and `--check` fails until regenerated).
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { type Symbol as MorphSymbol, type Node, Project, type SourceFile, type Type, ts } from 'ts-morph';
import { REGISTRY_PATH } from './implementations.ts';

/** A JSON Schema (2020-12) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** The type in the registry that maps each implemented tool to its implementation. */
export const IMPLEMENTATIONS_TYPE = 'ToolImplementations';

/** Why a type has no JSON form, with the path to it (`runQuery.rows[].at`). */
export class OutputTypeError extends Error {
  override name = 'OutputTypeError';
}

/**
 * For every implemented tool, the JSON Schema of what its `execute` resolves to, in registry order.
 * Undefined when the root has no registry (the generator then runs on the rows alone).
 */
export function readOutputSchemas(
  root: string,
  registryPath = REGISTRY_PATH,
  warn: (message: string) => void = () => {},
): Record<string, JsonSchema> | undefined {
  const registry = posix.join(root, registryPath);
  // The registry's own package settings (strict null checks, the workspace's source condition).
  const tsconfig = posix.join(root, posix.dirname(posix.dirname(registryPath)), 'tsconfig.json');
  if (!existsSync(registry) || !existsSync(tsconfig)) return undefined;
  const project = new Project({ tsConfigFilePath: tsconfig, skipAddingFilesFromTsConfig: true });
  return outputSchemasOf(project.addSourceFileAtPath(registry), warn);
}

/** The output schemas of the implementations `registry` declares (its IMPLEMENTATIONS_TYPE), if it does. */
export function outputSchemasOf(
  registry: SourceFile,
  warn: (message: string) => void = () => {},
): Record<string, JsonSchema> | undefined {
  const implementations = registry.getTypeAlias(IMPLEMENTATIONS_TYPE);
  if (!implementations) return undefined;
  const checker = registry.getProject().getTypeChecker();
  const schemas: Record<string, JsonSchema> = {};
  for (const tool of implementations.getType().getProperties()) {
    const name = tool.getName();
    const execute = checker.getTypeOfSymbolAtLocation(tool, registry).getProperty('execute');
    const signature = execute && checker.getTypeOfSymbolAtLocation(execute, registry).getCallSignatures()[0];
    if (!signature)
      throw new OutputTypeError(`${name} has no execute(input, ctx) in ${registry.getFilePath()}.`);
    const returned = signature.getReturnType();
    const resolved =
      returned.getSymbol()?.getName() === 'Promise' ? returned.getTypeArguments()[0]! : returned;
    schemas[name] = new SchemaWriter(registry, warn).root(resolved, name);
  }
  return schemas;
}

/** Turns checker types into JSON Schema, with recursive types as $defs. */
class SchemaWriter {
  private readonly onStack = new Set<ts.Type>();
  private readonly recursive = new Map<ts.Type, string>();
  private readonly defs: Record<string, JsonSchema> = {};
  private readonly at: Node;
  private readonly warn: (message: string) => void;

  constructor(at: Node, warn: (message: string) => void) {
    this.at = at;
    this.warn = warn;
  }

  root(type: Type, path: string): JsonSchema {
    const schema = this.of(type, path);
    return Object.keys(this.defs).length > 0 ? { ...schema, $defs: this.defs } : schema;
  }

  private of(type: Type, path: string): JsonSchema {
    // unknown is a value of the user's data (a row's column, a key): any JSON value, said so.
    if (type.isUnknown()) return { description: 'Any JSON value: as the data holds it.' };
    if (type.isAny()) {
      // any is a type the code lost: the schema validates nothing there, so the generator says so.
      this.warn(
        `${path} is any: its output schema there is {} (anything). Give it a type in the implementation's return value (unknown, if any JSON value is meant).`,
      );
      return {};
    }
    if (type.isNever()) return { not: {} };
    if (type.isNull()) return { type: 'null' };
    if (type.isString() || type.isTemplateLiteral()) return { type: 'string' };
    if (type.isNumber()) return { type: 'number' };
    if (type.isBoolean()) return { type: 'boolean' };
    if (type.isStringLiteral() || type.isNumberLiteral()) return { const: type.getLiteralValue() };
    if (type.isBooleanLiteral()) return { const: type.getText() === 'true' };
    if (type.isUndefined() || type.isBigInt() || type.isBigIntLiteral())
      throw new OutputTypeError(`${path} is ${type.getText()}, which JSON cannot carry.`);
    if (type.isUnion()) return this.named(type, () => this.union(type, path));
    if (type.isArray() || type.isReadonlyArray()) {
      const element = type.getArrayElementType() ?? type.getTypeArguments()[0];
      if (!element || element.isNever()) return { type: 'array', maxItems: 0 };
      return { type: 'array', items: this.of(element, `${path}[]`) };
    }
    if (type.isTuple()) {
      // Without prefixItems (2020-12 only): draft-07 validators, as SDK v1 clients run, read this too.
      const elements = type.getTupleElements().map((element, index) => this.of(element, `${path}[${index}]`));
      const items = elements.length === 1 ? elements[0]! : { anyOf: elements };
      return { type: 'array', items, minItems: elements.length, maxItems: elements.length };
    }
    if (type.getSymbol()?.getName() === 'Date') return { type: 'string', format: 'date-time' };
    if (type.isObject() || type.isIntersection()) return this.named(type, () => this.object(type, path));
    throw new OutputTypeError(`${path} is ${type.getText()}, which has no JSON Schema here.`);
  }

  private union(type: Type, path: string): JsonSchema {
    const members = type.getUnionTypes().filter((member) => !member.isUndefined());
    const schemas: JsonSchema[] = [];
    const literals = new Map<string, unknown[]>();
    let booleans = 0;
    for (const member of members) {
      if (member.isBooleanLiteral()) booleans += 1;
      if (member.isStringLiteral() || member.isNumberLiteral() || member.isBooleanLiteral()) {
        const value = member.isBooleanLiteral() ? member.getText() === 'true' : member.getLiteralValue();
        const kind = typeof value;
        literals.set(kind, [...(literals.get(kind) ?? []), value]);
      } else schemas.push(this.of(member, path));
    }
    // true | false is boolean; other literals of one kind are one enum.
    if (booleans === 2) {
      literals.delete('boolean');
      schemas.push({ type: 'boolean' });
    }
    for (const values of literals.values())
      schemas.push(values.length === 1 ? { const: values[0] } : { enum: values });
    if (schemas.length === 1) return schemas[0]!;
    // A union of objects is still an object: the root of an MCP output schema must say so.
    return schemas.every((schema) => schema.type === 'object')
      ? { type: 'object', anyOf: schemas }
      : { anyOf: schemas };
  }

  /** A type met again inside itself becomes a $def, and each place it occurs a $ref to it. */
  private named(type: Type, write: () => JsonSchema): JsonSchema {
    const key = type.compilerType;
    if (this.onStack.has(key)) {
      const name = this.recursive.get(key) ?? this.defName(type);
      this.recursive.set(key, name);
      return { $ref: `#/$defs/${name}` };
    }
    this.onStack.add(key);
    let schema: JsonSchema;
    try {
      schema = write();
    } finally {
      this.onStack.delete(key);
    }
    const name = this.recursive.get(key);
    if (!name) return schema;
    this.defs[name] = schema;
    return { $ref: `#/$defs/${name}` };
  }

  private object(type: Type, path: string): JsonSchema {
    if (type.getCallSignatures().length > 0)
      throw new OutputTypeError(`${path} is a function (${type.getText()}), which JSON cannot carry.`);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of type.getProperties()) {
      const name = property.getName();
      const propertyType = property.getTypeAtLocation(this.at);
      const present = propertyType.isUnion()
        ? propertyType.getUnionTypes().some((member) => !member.isUndefined())
        : !propertyType.isUndefined();
      // `x?: undefined` (one side of a union of object shapes) is a key that is never there.
      if (!present) continue;
      properties[name] = this.of(propertyType, `${path}.${name}`);
      if (!isOptional(property) && !includesUndefined(propertyType)) required.push(name);
    }
    const index = type.getStringIndexType();
    return {
      type: 'object',
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      ...(required.length > 0 ? { required } : {}),
      ...(index ? { additionalProperties: this.of(index, `${path}[key]`) } : {}),
    };
  }

  private defName(type: Type): string {
    const base = (type.getAliasSymbol() ?? type.getSymbol())?.getName().replace(/[^\w]/g, '') || 'Type';
    let name = base;
    for (let n = 2; Object.hasOwn(this.defs, name) || [...this.recursive.values()].includes(name); n += 1)
      name = `${base}${n}`;
    return name;
  }
}

function isOptional(property: MorphSymbol): boolean {
  return (property.getFlags() & ts.SymbolFlags.Optional) !== 0;
}

function includesUndefined(type: Type): boolean {
  return type.isUnion() && type.getUnionTypes().some((member) => member.isUndefined());
}
