import type { Emitter } from './emitter.ts';
import { arrayRecord, docComment, file, stringArray, stringRecord } from './format.ts';

export const toolNamesEmitter: Emitter = {
  id: 'tool-names',
  path: 'packages/catalog/src/generated/tool-names.ts',
  emit: ({ catalog, header }) =>
    file(
      header,
      docComment(`Every tool name, in row order (${catalog.names.length} rows).`),
      `export const TOOL_NAMES = ${stringArray(catalog.names)} as const;`,
      docComment('The name of one tool row.'),
      'export type ToolName = (typeof TOOL_NAMES)[number];',
    ),
};

export const tiersEmitter: Emitter = {
  id: 'tiers',
  path: 'packages/catalog/src/generated/tiers.ts',
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

export const enginesEmitter: Emitter = {
  id: 'engines',
  path: 'packages/catalog/src/generated/engines.ts',
  emit: ({ catalog, header }) => {
    const perEngine = (
      constName: string,
      doc: string,
      pick: (sets: (typeof catalog.engines)[number][1]) => string[],
    ) =>
      [
        docComment(doc),
        `export const ${constName} = ${arrayRecord(catalog.engines.map(([engine, sets]) => [engine, pick(sets)]))} as const satisfies Readonly<Record<ToolEngine, readonly ToolName[]>>;`,
      ].join('\n');
    return file(
      header,
      "import type { ToolEngine } from '@toolrow/declarations';\nimport type { ToolName } from './tool-names.ts';",
      [
        docComment(`Every engine a connection can run on (${catalog.engines.length}).`),
        `export const TOOL_ENGINES = ${stringArray(catalog.engines.map(([engine]) => engine))} as const satisfies readonly ToolEngine[];`,
      ].join('\n'),
      perEngine('ENGINE_TOOLS', 'For each engine, every tool it serves (row order).', (sets) => sets.names),
      perEngine(
        'ENGINE_INLINE_TOOLS',
        'For each engine, the tools active from the first step of a turn on its connections.',
        (sets) => sets.inline,
      ),
      perEngine(
        'ENGINE_DISCOVERABLE_TOOLS',
        'For each engine, the tools searchTools can find on its connections.',
        (sets) => sets.discoverable,
      ),
      perEngine(
        'ENGINE_UNSERVED_TOOLS',
        'For each engine, the rows it does not serve: a call to one is refused, naming what to use instead.',
        (sets) => sets.unserved,
      ),
    );
  },
};
