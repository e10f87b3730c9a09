import type { Emitter } from './emitter.ts';
import { arrayRecord, docComment, file, stringArray } from './format.ts';

export const writeScopesEmitter: Emitter = {
  id: 'write-scopes',
  path: 'packages/tools/src/generated/write-scopes.ts',
  what: 'which tools write the UI, the staging area, files; which write nothing',
  emit: ({ catalog, header }) =>
    file(
      header,
      "import type { ToolName } from '@toolrow/catalog';",
      [
        docComment(
          'What each tool may change, by kind: the UI, the staging area, or files. Tables change only on a user commit.',
        ),
        `export const WRITE_SCOPE_TOOLS = ${arrayRecord(catalog.writeScopes)} as const satisfies Readonly<Record<'ui' | 'staging' | 'files', readonly ToolName[]>>;`,
        '',
        'export type WriteScope = keyof typeof WRITE_SCOPE_TOOLS;',
      ].join('\n'),
      [
        docComment(`Tools that write nothing at all (${catalog.readOnly.length}).`),
        `export const READ_ONLY_TOOLS = ${stringArray(catalog.readOnly)} as const satisfies readonly ToolName[];`,
      ].join('\n'),
    ),
};
