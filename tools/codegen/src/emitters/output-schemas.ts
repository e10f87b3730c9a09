import type { Emitter } from './emitter.ts';
import { docComment, file } from './format.ts';

export const outputSchemasEmitter: Emitter = {
  id: 'output-schemas',
  path: 'packages/tools/src/generated/output-schemas.ts',
  what: "each tool's output as JSON Schema, read by the type checker from what its `execute` returns (MCP lists it as the tool's `outputSchema`)",
  emit: ({ outputSchemas, header }) =>
    outputSchemas &&
    file(
      header,
      "import type { ImplementedToolName } from '../define.ts';",
      [
        docComment('A JSON Schema (2020-12) as plain data.'),
        'export type ToolOutputSchema = { readonly [keyword: string]: unknown };',
      ].join('\n'),
      [
        docComment(
          "What each tool returns, as JSON Schema: read by the type checker from the implementation's `execute` return type (packages/tools/src/tools/). Change the code, then run `npm run gen`.",
        ),
        `export const TOOL_OUTPUT_SCHEMAS: Readonly<Record<ImplementedToolName, ToolOutputSchema>> = ${JSON.stringify(outputSchemas, null, 2)};`,
      ].join('\n'),
    ),
};
