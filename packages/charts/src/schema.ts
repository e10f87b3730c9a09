// Vega-Lite's own JSON schema, from the vega-lite package: the whole bound spec is checked
// against it before anything is drawn. Compiled once, on first use (about two seconds).
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ChartRefusal } from './refusal.ts';

let compiled: ValidateFunction | undefined;
let schemaJson: { definitions: Record<string, { enum?: string[] }> } | undefined;

function schema(): { definitions: Record<string, { enum?: string[] }> } {
  schemaJson ??= createRequire(import.meta.url)('vega-lite/vega-lite-schema.json');
  return schemaJson as { definitions: Record<string, { enum?: string[] }> };
}

function validator(): ValidateFunction {
  compiled ??= new Ajv({
    strict: false,
    allowUnionTypes: true,
    validateFormats: false,
    logger: false,
  }).compile(schema());
  return compiled;
}

/** The marks Vega-Lite knows, from its schema. */
export function vegaLiteMarks(): readonly string[] {
  return schema().definitions.Mark?.enum ?? [];
}

/** The deepest error is the one that names the field; the others are the unions around it. */
function deepest(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return [...errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0];
}

function describe(error: ErrorObject): string {
  const params = error.params as {
    allowedValues?: unknown[];
    additionalProperty?: string;
    missingProperty?: string;
  };
  if (params.additionalProperty) return `it has no property '${params.additionalProperty}'`;
  if (params.allowedValues)
    return `it must be one of ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
  if (params.missingProperty) return `it needs '${params.missingProperty}'`;
  return String(error.message);
}

/** Refuses a spec Vega-Lite's schema does not accept, naming where and what it wants. */
export function checkAgainstVegaLiteSchema(spec: unknown): void {
  const validate = validator();
  if (validate(spec)) return;
  const error = deepest(validate.errors ?? []);
  const at = error?.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : 'the top level';
  throw new ChartRefusal(
    'schema',
    `Vega-Lite's schema refuses the spec at ${at}: ${error ? describe(error) : 'it is not a Vega-Lite spec'}.`,
    at,
  );
}
