import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_ROWS, WORD_LANGUAGES } from '@toolrow/declarations';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { generate, renderFiles } from './generate.ts';
import { DECLARATIONS_PATH, GENERATED_HEADER } from './header.ts';
import { RowErrors } from './row-model.ts';

const ROOT = '/repo';
const REAL_ROWS = readFileSync(join(import.meta.dirname, '../../..', DECLARATIONS_PATH), 'utf8');

/** A repository on ts-morph's in-memory file system holding only the declaration file. */
function memoryRepo(declarations: string): Project {
  const project = new Project({ useInMemoryFileSystem: true });
  project.getFileSystem().writeFileSync(`${ROOT}/${DECLARATIONS_PATH}`, declarations);
  return project;
}

/** A declaration file with the given rows, written as object literals. */
function rowsFile(...rows: string[]): string {
  return `export const TOOL_ROWS = [\n${rows.join(',\n')}\n] as const satisfies readonly ToolRow[];\n`;
}

/** Words in every language a discoverable row must carry (the rule's own subject aside). */
const EVERY_LANGUAGE = `{ ${WORD_LANGUAGES.map((language) => `'${language}': ['w']`).join(', ')} }`;

/** A valid row with fields overridden; `undefined` removes a field. A discoverable one gets words. */
function row(overrides: Record<string, string | undefined> = {}): string {
  const fields: Record<string, string | undefined> = {
    name: "'listTables'",
    description: "'List tables.'",
    keywords: "['tables']",
    visibility: "'inline'",
    tier: "'silent'",
    mcp: "'readonly'",
    writes: "'none'",
    ...(overrides.visibility === "'discoverable'" && !('words' in overrides)
      ? { words: EVERY_LANGUAGE }
      : {}),
    ...overrides,
  };
  const body = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `    ${key}: ${value},`)
    .join('\n');
  return `  {\n${body}\n  }`;
}

const gatedRow = (name: string, access: string, extra: Record<string, string | undefined> = {}) =>
  row({
    name: `'${name}'`,
    tier: "'gated'",
    access: `'${access}'`,
    writes: `'${{ read: 'none', propose: 'ui', open: 'ui', stage: 'staging', export: 'files' }[access]}'`,
    mcp: `'${{ read: 'readonly', propose: 'staged', open: 'full', stage: 'staged', export: 'full' }[access]}'`,
    ...extra,
  });

function errorsOf(declarations: string): string[] {
  try {
    generate({ root: ROOT, project: memoryRepo(declarations) });
  } catch (error) {
    if (error instanceof RowErrors) return error.errors.map((e) => e.message);
    throw error;
  }
  return [];
}

describe('reading the rows from the AST', () => {
  it('reads the real declaration file without running it', () => {
    const result = generate({ root: ROOT, project: memoryRepo(REAL_ROWS), check: true });
    expect(result.rows).toHaveLength(TOOL_ROWS.length);
    expect(result.rows[0]!.row).toMatchObject({
      name: 'searchTools',
      tier: 'loop',
      visibility: 'inline',
      mcp: 'excluded',
    });
    expect(result.rows[0]!.location.file).toBe(DECLARATIONS_PATH);
  });

  it('folds literal concatenation and reads template literals without substitutions', () => {
    const rows = generate({
      root: ROOT,
      project: memoryRepo(rowsFile(row({ description: "'List ' + `all ` + 'tables.'" }))),
    }).rows;
    expect(rows[0]!.row.description).toBe('List all tables.');
  });

  const notLiteral: { given: string; field: string; value: string; want: RegExp }[] = [
    {
      given: 'an identifier',
      field: 'description',
      value: 'DESCRIPTION',
      want: /'description' must be a literal; found the identifier 'DESCRIPTION'/,
    },
    {
      given: 'a call',
      field: 'description',
      value: "describe('x')",
      want: /'description' must be a literal; found a call/,
    },
    {
      given: 'a template with substitutions',
      field: 'name',
      value: '`list${X}`',
      want: /'name' must be a literal; found a template with substitutions/,
    },
    {
      given: 'an array with an identifier',
      field: 'keywords',
      value: "['a', B]",
      want: /'keywords' must be a literal/,
    },
    { given: 'a number', field: 'description', value: '42', want: /'description' must be a literal/ },
    {
      given: 'a string where an array belongs',
      field: 'keywords',
      value: "'tables'",
      want: /'keywords' must be an array of strings/,
    },
    {
      given: 'an array where a string belongs',
      field: 'tier',
      value: "['silent']",
      want: /'tier' must be a string/,
    },
  ];
  it.each(notLiteral)('refuses $given as a value, naming file:line', ({ field, value, want }) => {
    const errors = errorsOf(rowsFile(row({ [field]: value })));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(want);
    expect(errors[0]).toMatch(new RegExp(`^${DECLARATIONS_PATH}:\\d+: `));
  });

  const badShapes: { given: string; source: string; want: RegExp }[] = [
    {
      given: 'no TOOL_ROWS export',
      source: 'export const ROWS = [];',
      want: /:1: no exported const TOOL_ROWS found/,
    },
    {
      given: 'an unexported TOOL_ROWS',
      source: 'const TOOL_ROWS = [];',
      want: /no exported const TOOL_ROWS/,
    },
    {
      given: 'TOOL_ROWS that is not an array',
      source: 'export const TOOL_ROWS = makeRows();',
      want: /:1: TOOL_ROWS must be an array literal/,
    },
    {
      given: 'a spread of rows',
      source: 'export const TOOL_ROWS = [...OTHER];',
      want: /row 1 must be an object literal; found a spread/,
    },
    {
      given: 'a row that is an identifier',
      source: 'export const TOOL_ROWS = [ROW];',
      want: /row 1 must be an object literal; found the identifier 'ROW'/,
    },
    {
      given: 'a spread inside a row',
      source: rowsFile("  { ...BASE, name: 'x' }"),
      want: /row 'x': a spread is not allowed/,
    },
    {
      given: 'a shorthand property',
      source: rowsFile('  { name }'),
      want: /row 1: the shorthand property 'name' is not allowed/,
    },
    {
      given: 'a computed key',
      source: rowsFile("  { ['name']: 'x' }"),
      want: /computed property names are not allowed/,
    },
    {
      given: 'a misspelt property',
      source: rowsFile(row({ visiblity: "'inline'" })),
      want: /row 'listTables': unknown property 'visiblity'/,
    },
    {
      given: 'a missing property',
      source: rowsFile(row({ mcp: undefined })),
      want: /row 'listTables': missing required property 'mcp'/,
    },
    {
      given: 'an enum value out of range',
      source: rowsFile(row({ tier: "'quiet'" })),
      want: /'tier' is 'quiet'; it must be one of 'silent', 'gated', 'loop'/,
    },
    {
      given: 'an unknown MCP level',
      source: rowsFile(row({ mcp: "'public'" })),
      want: /'mcp' is 'public'; it must be one of 'readonly', 'staged', 'full', 'excluded'/,
    },
  ];
  it.each(badShapes)('refuses $given', ({ source, want }) => {
    const errors = errorsOf(source);
    expect(errors.join('\n')).toMatch(want);
  });

  it('reports the line of the offending property', () => {
    const source = rowsFile(row(), row({ name: "'countRows'", description: 'TEXT' }));
    const line = source.split('\n').findIndex((text) => text.includes('description: TEXT')) + 1;
    expect(errorsOf(source)).toEqual([
      expect.stringMatching(new RegExp(`^${DECLARATIONS_PATH}:${line}: row 'countRows'`)),
    ]);
  });
});

describe('validating the rows', () => {
  const cases: { rule: string; rows: string[]; want: RegExp }[] = [
    {
      rule: 'unique names',
      rows: [row(), row()],
      want: /row 'listTables': the name is already used by the row at line 2/,
    },
    {
      rule: 'camelCase names',
      rows: [row({ name: "'list-tables'" })],
      want: /name 'list-tables' must be camelCase.* \[name-format\]/,
    },
    {
      rule: 'non-empty description',
      rows: [row({ description: "'  '" })],
      want: /description is empty.* \[description-length\]/,
    },
    {
      rule: 'short description',
      rows: [row({ description: `'${'x'.repeat(401)}'` })],
      want: /description is 401 characters; keep it under 400/,
    },
    {
      rule: 'discoverable rows have words in every language',
      rows: [row({ visibility: "'discoverable'", words: "{ 'zh-Hans': ['表'] }" })],
      want: /a discoverable row needs words in every language.*add words for zh-Hant, ja, .* \[discoverable-in-every-language\]/,
    },
    {
      rule: 'discoverable rows have keywords',
      rows: [row({ visibility: "'discoverable'", keywords: '[]' })],
      want: /a discoverable row needs keywords.* \[discoverable-has-keywords\]/,
    },
    {
      rule: 'known features',
      rows: [row({ needs: "['foreignKeys', 'joins']" })],
      want: /row 'listTables': 'needs' lists 'joins'; each entry must be one of 'foreignKeys'/,
    },
    {
      rule: 'needs is a list',
      rows: [row({ needs: "'foreignKeys'" })],
      want: /'needs' must be an array of strings/,
    },
    {
      rule: 'needs not empty',
      rows: [row({ needs: '[]' })],
      want: /needs is empty: leave it out when every engine serves the tool \[needs-clean\]/,
    },
    {
      rule: 'a need listed once',
      rows: [row({ needs: "['foreignKeys', 'foreignKeys']" })],
      want: /need 'foreignKeys' is listed twice/,
    },
    {
      rule: 'engine words keyed by an engine id',
      rows: [row({ engineWords: "{ 'Dynamo DB': ['item'] }" })],
      want: /'engineWords' has the key 'Dynamo DB'; each key must be an engine's id/,
    },
    { rule: 'no empty keyword', rows: [row({ keywords: "['a', '']" })], want: /keywords has an empty entry/ },
    {
      rule: 'no repeated keyword',
      rows: [row({ keywords: "['csv', 'CSV']" })],
      want: /keyword 'CSV' is listed twice/,
    },
    {
      rule: 'a verb listed once',
      rows: [row({ verbs: "['change', 'Change']" })],
      want: /verbs lists 'Change' twice .*\[verbs-clean\]/,
    },
    {
      rule: 'a verb is not also a keyword',
      rows: [row({ keywords: "['tables', 'change']", verbs: "['change']" })],
      want: /'change' is in verbs and in keywords or words; keep it in verbs alone/,
    },
    {
      rule: 'verbs are strings',
      rows: [row({ verbs: '[1]' })],
      want: /'verbs' must be a literal/,
    },
    {
      rule: 'silent rows write nothing',
      rows: [row({ writes: "'files'" })],
      want: /a silent row runs without asking anyone, so it must write nothing .* \[silent-writes-nothing\]/,
    },
    {
      rule: 'silent rows are never full',
      rows: [row({ mcp: "'full'" })],
      want: /a silent row reads and never needs the full MCP scope.* \[silent-never-full\]/,
    },
    {
      rule: 'gated rows have an access class',
      rows: [row({ tier: "'gated'" })],
      want: /a gated row needs an access class.* \[gated-has-access\]/,
    },
    {
      rule: 'only gated rows have an access class',
      rows: [row({ access: "'read'" })],
      want: /only gated rows have an access class; this row is silent/,
    },
    {
      rule: 'loop rows are inline',
      rows: [row({ tier: "'loop'", visibility: "'discoverable'", mcp: "'excluded'" })],
      want: /a loop row must be inline.* \[loop-is-internal\]/,
    },
    {
      rule: 'loop rows are excluded from MCP',
      rows: [row({ tier: "'loop'" })],
      want: /a loop row is part of the agent loop, not a capability: use mcp: 'excluded'/,
    },
    {
      rule: 'writes match the access class',
      rows: [gatedRow('getRow', 'read', { writes: "'staging'", mcp: "'staged'" })],
      want: /a 'read' row writes 'none', not 'staging' \[writes-match-access\]/,
    },
    {
      rule: 'a stage row is never readonly over MCP',
      rows: [gatedRow('stageInsertRows', 'stage', { mcp: "'readonly'" })],
      want: /a 'stage' row cannot be exposed as mcp 'readonly'.*Use 'staged' or wider, or 'excluded' \[mcp-covers-access\]/,
    },
    {
      rule: 'an open row needs the full scope',
      rows: [gatedRow('openTable', 'open', { mcp: "'staged'" })],
      want: /an 'open' row cannot be exposed as mcp 'staged'/,
    },
    {
      rule: 'an export row needs the full scope',
      rows: [gatedRow('startExport', 'export', { mcp: "'readonly'" })],
      want: /an 'export' row cannot be exposed as mcp 'readonly'/,
    },
    {
      rule: 'a stage row says what it queues',
      rows: [gatedRow('stageInsertRows', 'stage')],
      want: /a stage row must say what it queues.* \[stages-only-on-stage\]/,
    },
    {
      rule: 'only stage rows have stages',
      rows: [gatedRow('getRow', 'read', { stages: "'delete'" })],
      want: /only stage rows have a stages field/,
    },
    {
      rule: 'stages is an operation',
      rows: [gatedRow('stageInsertRows', 'stage', { stages: "'upsert'" })],
      want: /'stages' is 'upsert'; it must be one of 'insert', 'update', 'delete'/,
    },
    {
      rule: 'a propose row names its twin',
      rows: [gatedRow('proposeOpenTable', 'propose')],
      want: /a propose row must name its immediate twin.* \[twin-only-on-propose\]/,
    },
    {
      rule: 'only propose rows name a twin',
      rows: [gatedRow('openTable', 'open', { twin: "'openRow'" })],
      want: /only propose rows name a twin/,
    },
    {
      rule: 'the twin exists (with a suggestion)',
      rows: [
        gatedRow('startExport', 'export'),
        gatedRow('proposeExport', 'propose', { twin: "'startExprot'" }),
      ],
      want: /twin 'startExprot' is not a row name; did you mean 'startExport'\? \[twin-exists-and-is-gated\]/,
    },
    {
      rule: 'the twin is gated',
      rows: [row(), gatedRow('proposeList', 'propose', { twin: "'listTables'" })],
      want: /twin 'listTables' must be gated; it is silent/,
    },
    {
      rule: 'the twin is not itself a propose row',
      rows: [
        gatedRow('openTable', 'open'),
        gatedRow('proposeA', 'propose', { twin: "'openTable'" }),
        gatedRow('proposeB', 'propose', { twin: "'proposeA'" }),
      ],
      want: /twin 'proposeA' is itself a propose row/,
    },
    {
      rule: 'a pair shares its visibility',
      rows: [
        gatedRow('openTable', 'open'),
        gatedRow('proposeOpenTable', 'propose', { twin: "'openTable'", visibility: "'discoverable'" }),
      ],
      want: /twin 'openTable' is inline but this propose row is discoverable/,
    },
    {
      rule: 'one propose twin per immediate tool',
      rows: [
        gatedRow('openTable', 'open'),
        gatedRow('proposeA', 'propose', { twin: "'openTable'" }),
        gatedRow('proposeB', 'propose', { twin: "'openTable'" }),
      ],
      want: /row 'proposeB': 'openTable' is already the twin of 'proposeA'/,
    },
    { rule: 'at least one row', rows: [], want: /there are no rows/ },
  ];

  it.each(cases)('$rule', ({ rows, want }) => {
    const errors = errorsOf(rowsFile(...rows));
    expect(errors.join('\n')).toMatch(want);
  });

  it('reports every problem at once and writes nothing', () => {
    const project = memoryRepo(
      rowsFile(row({ writes: "'ui'" }), row({ name: "'countRows'", tier: "'gated'" })),
    );
    expect(() => generate({ root: ROOT, project })).toThrow(/2 problems in the tool rows/);
    expect(project.getFileSystem().directoryExistsSync(`${ROOT}/packages/catalog/src/generated`)).toBe(false);
  });

  it('accepts the real rows', () => {
    expect(errorsOf(REAL_ROWS)).toEqual([]);
  });
});

describe('emitting and checking', () => {
  it('writes every file once, headed, then leaves unchanged files alone', () => {
    const project = memoryRepo(REAL_ROWS);
    const first = generate({ root: ROOT, project });
    expect(first.files.map((file) => file.status)).toEqual([
      'written',
      'written',
      'written',
      'written',
      'written',
      'written',
    ]);
    for (const { path } of first.files) {
      expect(
        project.getFileSystem().readFileSync(`${ROOT}/${path}`).startsWith(`${GENERATED_HEADER}\n`),
      ).toBe(true);
    }
    const second = generate({ root: ROOT, project });
    expect(second.files.map((file) => file.status)).toEqual(first.files.map(() => 'unchanged'));
  });

  it('is deterministic', () => {
    const rows = generate({ root: ROOT, project: memoryRepo(REAL_ROWS), check: true }).rows;
    expect(renderFiles(rows)).toEqual(renderFiles(rows));
  });

  it('--check lists stale and missing files and writes nothing', () => {
    const project = memoryRepo(REAL_ROWS);
    generate({ root: ROOT, project });
    const fs = project.getFileSystem();
    const tiers = `${ROOT}/packages/catalog/src/generated/tiers.ts`;
    fs.writeFileSync(tiers, `${fs.readFileSync(tiers)}// hand edit\n`);
    fs.deleteSync(`${ROOT}/packages/tools/src/generated/write-scopes.ts`);
    const result = generate({ root: ROOT, project, check: true });
    expect(result.stale.map((file) => file.path)).toEqual([
      'packages/catalog/src/generated/tiers.ts',
      'packages/tools/src/generated/write-scopes.ts',
    ]);
    expect(fs.readFileSync(tiers).endsWith('// hand edit\n')).toBe(true);
    expect(fs.fileExistsSync(`${ROOT}/packages/tools/src/generated/write-scopes.ts`)).toBe(false);
  });

  it('flags files in generated folders that no emitter produces, and removes them on gen', () => {
    const project = memoryRepo(REAL_ROWS);
    generate({ root: ROOT, project });
    const orphan = `${ROOT}/packages/catalog/src/generated/old-list.ts`;
    project.getFileSystem().writeFileSync(orphan, 'export const OLD = [];\n');
    expect(generate({ root: ROOT, project, check: true }).stale).toEqual([
      { path: 'packages/catalog/src/generated/old-list.ts', status: 'orphan' },
    ]);
    expect(generate({ root: ROOT, project }).files).toContainEqual({
      path: 'packages/catalog/src/generated/old-list.ts',
      status: 'deleted',
    });
    expect(project.getFileSystem().fileExistsSync(orphan)).toBe(false);
  });

  it('a one-row edit changes exactly the derived lines that depend on it', () => {
    const project = memoryRepo(REAL_ROWS);
    generate({ root: ROOT, project });
    const fs = project.getFileSystem();
    const before = fs.readFileSync(`${ROOT}/packages/mcp-server/src/generated/mcp-scopes.ts`);
    // getTableStats goes from readonly to excluded.
    const edited = REAL_ROWS.replace(/(name: 'getTableStats',[\s\S]*?mcp: )'readonly'/, "$1'excluded'");
    expect(edited).not.toBe(REAL_ROWS);
    fs.writeFileSync(`${ROOT}/${DECLARATIONS_PATH}`, edited);
    project.getSourceFileOrThrow(`${ROOT}/${DECLARATIONS_PATH}`).refreshFromFileSystemSync();
    const result = generate({ root: ROOT, project });
    expect(result.files.filter((file) => file.status === 'written').map((file) => file.path)).toEqual([
      'packages/mcp-server/src/generated/mcp-scopes.ts',
    ]);
    const after = fs.readFileSync(`${ROOT}/packages/mcp-server/src/generated/mcp-scopes.ts`);
    // Before: listed by three scopes and given a required scope; after: only in the excluded list.
    expect(before.match(/'getTableStats'/g)).toHaveLength(3);
    expect(before).toMatch(/getTableStats: 'tables:readonly'/);
    expect(after.match(/'getTableStats'/g)).toHaveLength(1);
    expect(after).not.toMatch(/getTableStats:/);
    expect(after).toMatch(/MCP_EXCLUDED_TOOLS = \[\n {2}'searchTools',\n {2}'getTableStats',/);
  });
});

describe('what rows need of an engine', () => {
  const propose = gatedRow('proposeOpenTable', 'propose', { twin: "'openTable'" });
  const rows = [
    row({ name: "'searchTools'", tier: "'loop'", mcp: "'excluded'" }),
    row({ name: "'listTables'" }),
    row({ name: "'describeRelations'", visibility: "'discoverable'", needs: "['foreignKeys']" }),
    gatedRow('openTable', 'open'),
    propose,
  ];
  const rendered = () => {
    const project = memoryRepo(rowsFile(...rows));
    generate({ root: ROOT, project });
    const read = (path: string) => project.getFileSystem().readFileSync(`${ROOT}/${path}`);
    return {
      needs: read('packages/catalog/src/generated/needs.ts'),
      scopes: read('packages/mcp-server/src/generated/mcp-scopes.ts'),
    };
  };

  it('TOOL_NEEDS holds exactly the rows that need something, and the scopes name no engine', () => {
    const { needs, scopes } = rendered();
    expect(needs).toMatch(
      /export const TOOL_NEEDS = \{\n {2}describeRelations: \[\n {4}'foreignKeys',\n {2}\],\n\}/,
    );
    expect(needs).not.toContain('listTables');
    // Which engine serves what is decided at run time from the features each engine declares.
    expect(scopes).not.toMatch(/postgres|dynamodb/);
    expect(scopes).toContain("'describeRelations'");
  });

  it('a loop row may not need anything, and a propose pair needs the same', () => {
    expect(
      errorsOf(
        rowsFile(row({ name: "'searchTools'", tier: "'loop'", mcp: "'excluded'", needs: "['foreignKeys']" })),
      ),
    ).toEqual([expect.stringMatching(/a loop row serves every engine: leave needs out \[needs-clean\]/)]);
    const narrowed = gatedRow('proposeOpenTable', 'propose', {
      twin: "'openTable'",
      needs: "['foreignKeys']",
    });
    expect(errorsOf(rowsFile(gatedRow('openTable', 'open'), narrowed))).toEqual([
      expect.stringMatching(
        /twin 'openTable' needs nothing but this propose row foreignKeys; a pair is served on the same engines/,
      ),
    ]);
  });
});

describe("the docs' figures of the rows", () => {
  const twoRows = rowsFile(row(), row({ name: "'countRows'", visibility: "'discoverable'" }));

  it('are written between their markers, and --check calls a doc with an old figure stale', () => {
    const project = memoryRepo(twoRows);
    const fs = project.getFileSystem();
    fs.writeFileSync(
      `${ROOT}/README.md`,
      'Its <!-- rows:tools -->38<!-- /rows --> tools; <!-- rows:discoverable -->0<!-- /rows --> found by search.\n',
    );
    const checked = generate({ root: ROOT, project, check: true, outputSchemas: {} });
    expect(checked.stale.map((file) => file.path)).toContain('README.md');
    generate({ root: ROOT, project, outputSchemas: {} });
    expect(fs.readFileSync(`${ROOT}/README.md`, 'utf8')).toBe(
      'Its <!-- rows:tools -->2<!-- /rows --> tools; <!-- rows:discoverable -->1<!-- /rows --> found by search.\n',
    );
    expect(generate({ root: ROOT, project, check: true, outputSchemas: {} }).stale).toEqual([]);
  });

  it('a marker that names no figure is an error naming the doc and the figures there are', () => {
    const project = memoryRepo(twoRows);
    project.getFileSystem().writeFileSync(`${ROOT}/README.md`, '<!-- rows:tool -->1<!-- /rows -->');
    expect(() => generate({ root: ROOT, project, outputSchemas: {} })).toThrow(
      /README\.md: <!-- rows:tool --> names no figure of the rows; use one of tools, inline, discoverable/,
    );
  });
});

describe('removing and renaming a row', () => {
  const committed = (...names: string[]) =>
    `export const TOOL_NAMES = [\n${names.map((name) => `  '${name}',`).join('\n')}\n] as const;\n`;

  it('a rename keeps the old name in formerly: FORMER_NAMES maps it, and gen names the files that still hold it', () => {
    const project = memoryRepo(rowsFile(row({ name: "'listViews'", formerly: "['listOldViews']" })));
    const fs = project.getFileSystem();
    fs.writeFileSync(`${ROOT}/packages/catalog/src/generated/tool-names.ts`, committed('listOldViews'));
    fs.writeFileSync(`${ROOT}/apps/cli/src/uses.ts`, "call('listOldViews');\n");
    fs.writeFileSync(`${ROOT}/apps/cli/src/other.ts`, "call('listOldViewsToo');\n");
    const result = generate({ root: ROOT, project, outputSchemas: {} });
    expect(result.leftovers).toEqual([
      { name: 'listOldViews', renamedTo: 'listViews', files: ['apps/cli/src/uses.ts'] },
    ]);
    expect(fs.readFileSync(`${ROOT}/packages/catalog/src/generated/tool-names.ts`, 'utf8')).toContain(
      "export const FORMER_NAMES: Readonly<Record<string, ToolName>> = {\n  listOldViews: 'listViews',\n};",
    );
  });

  it('a removal: gen names the files that still hold the name', () => {
    const project = memoryRepo(rowsFile(row()));
    const fs = project.getFileSystem();
    fs.writeFileSync(
      `${ROOT}/packages/catalog/src/generated/tool-names.ts`,
      committed('listTables', 'countRows'),
    );
    fs.writeFileSync(`${ROOT}/packages/tools/src/tools/count.ts`, 'export const countRows = 1;\n');
    expect(generate({ root: ROOT, project, outputSchemas: {} }).leftovers).toEqual([
      { name: 'countRows', files: ['packages/tools/src/tools/count.ts'] },
    ]);
  });

  it.each([
    ["['listTables']", /formerly lists its own name 'listTables'/],
    ["['countRows']", /formerly lists 'countRows', the name of another row now/],
    ["['not a name']", /formerly lists 'not a name', which is no tool name/],
  ])('formerly %s is refused', (formerly, message) => {
    const project = memoryRepo(rowsFile(row({ formerly }), row({ name: "'countRows'" })));
    expect(() => generate({ root: ROOT, project, outputSchemas: {} })).toThrow(message);
  });
});
