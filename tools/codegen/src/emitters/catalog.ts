import type { Emitter } from './emitter.ts';
import { arrayRecord, docComment, file, stringArray, stringRecord } from './format.ts';

export const toolNamesEmitter: Emitter = {
  id: 'tool-names',
  path: 'packages/catalog/src/generated/tool-names.ts',
  what: "`TOOL_NAMES`, the `ToolName` union, and `FORMER_NAMES` (a renamed row's old names)",
  emit: ({ rows, catalog, header }) =>
    file(
      header,
      docComment(`Every tool name, in row order (${catalog.names.length} rows).`),
      `export const TOOL_NAMES = ${stringArray(catalog.names)} as const;`,
      docComment('The name of one tool row.'),
      'export type ToolName = (typeof TOOL_NAMES)[number];',
      docComment(
        "Names rows had before (their `formerly`), each to the row's name now: grants and audit history carry over a rename.",
      ),
      `export const FORMER_NAMES: Readonly<Record<string, ToolName>> = ${stringRecord(
        rows.flatMap((row) => (row.formerly ?? []).map((former) => [former, row.name] as const)),
      )};`,
    ),
};

export const tiersEmitter: Emitter = {
  id: 'tiers',
  path: 'packages/catalog/src/generated/tiers.ts',
  what: 'silent / gated / loop sets, inline / discoverable lists, access classes, propose twins',
  emit: ({ catalog, header }) => {
    const list = (constName: string, typeName: string, doc: string, names: readonly string[]) =>
      [
        docComment(`${doc} (${names.length}).`),
        `export const ${constName} = ${stringArray(names)} as const satisfies readonly ToolName[];`,
        '',
        `export type ${typeName} = (typeof ${constName})[number];`,
      ].join('\n');
    return file(
      header,
      "import type { ToolAccess } from '@toolrow/declarations';\nimport type { ToolName } from './tool-names.ts';",
      list(
        'SILENT_TOOLS',
        'SilentToolName',
        'Reads that bother nobody: they run without asking',
        catalog.silent,
      ),
      list(
        'GATED_TOOLS',
        'GatedToolName',
        'Tools that act on the world or cost something: they go through the approval ladder',
        catalog.gated,
      ),
      list(
        'LOOP_TOOLS',
        'LoopToolName',
        'Parts of the agent loop itself, neither silent nor gated',
        catalog.loop,
      ),
      list('INLINE_TOOLS', 'InlineToolName', 'Active from the first step of every turn', catalog.inline),
      list(
        'DISCOVERABLE_TOOLS',
        'DiscoverableToolName',
        'Active only after searchTools finds them',
        catalog.discoverable,
      ),
      [
        docComment('The access class of every gated tool.'),
        `export const TOOL_ACCESS = ${stringRecord(catalog.accessByName)} as const satisfies Readonly<Record<GatedToolName, ToolAccess>>;`,
      ].join('\n'),
      [
        docComment(
          `Each propose tool and the immediate tool it proposes (${catalog.proposeTwins.length} pairs).`,
        ),
        `export const PROPOSE_TWINS = ${stringRecord(catalog.proposeTwins)} as const satisfies Readonly<Partial<Record<GatedToolName, GatedToolName>>>;`,
        '',
        'export type ProposeToolName = keyof typeof PROPOSE_TWINS;',
      ].join('\n'),
    );
  },
};

export const needsEmitter: Emitter = {
  id: 'needs',
  path: 'packages/catalog/src/generated/needs.ts',
  what: "what each tool needs of a connection's engine (`TOOL_NEEDS`); each engine declares its features, and its sets are derived from them at run time",
  emit: ({ catalog, header }) =>
    file(
      header,
      "import type { EngineFeature } from '@toolrow/declarations';\nimport type { ToolName } from './tool-names.ts';",
      [
        docComment(
          `What each tool needs of a connection's engine (${catalog.needs.length} of the rows need something; the rest are served on every engine). An engine declares the features it has.`,
        ),
        `export const TOOL_NEEDS = ${arrayRecord(catalog.needs)} as const satisfies Readonly<Partial<Record<ToolName, readonly EngineFeature[]>>>;`,
      ].join('\n'),
    ),
};
