// "Edit one row", as a team adding a tool meets it (issue 58.3): in a copy of the repository, add
// a row with a required input and run `npm run gen` (the real CLI on the copy): it names the file
// and the entry to write, and the runtime says the same instead of crashing. Then write the
// implementation only, run gen again for its output schema, and every suite that lists the tools
// passes in the copy with no other edit (the MCP fixtures, output-schema inputs and eval's inputs
// come from the row's example). Then rename that row and remove it the same way: gen names the
// files that still hold the name, and once those are edited the checks pass again.
//
// Which suites: those that iterate the catalog (the registry, schemas, the silent tier, the agent's
// gating, search and ladder, eval's corpus, MCP scopes, output schemas on every engine and the
// real-database MCP suite, the CLI's catalog and call, the OAuth consent page, the generator's own
// checks). The rest of the suite never reads the rows and takes many minutes here.
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { TOOL_ROWS, WORD_LANGUAGES } from '@toolrow/declarations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECLARATIONS_PATH } from './header.ts';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../../..');
const GEN = join(REPO, 'tools/codegen/src/cli.ts');
// Every workspace (the generator writes into several, they import each other, and the apps list
// tools too) and the documents whose figures the generator writes.
const WORKSPACES = ['packages', 'apps', 'tools'].flatMap((parent) =>
  readdirSync(join(REPO, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
    .map((entry) => `${parent}/${entry.name}`),
);
const COPIED = [...WORKSPACES, 'docs', 'README.md', 'CONTRIBUTING.md'];

async function sh(cwd: string, command: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The packages as a clone has them (no dist/), resolving each other inside the copy. */
async function copyOfPackages(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'toolrow-edit-one-row-'));
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', ...COPIED],
    {
      cwd: REPO,
    },
  );
  for (const path of [
    ...stdout.split('\0').filter(Boolean),
    'package.json',
    'tsconfig.base.json',
    'vitest.shared.ts',
  ]) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    cpSync(join(REPO, path), join(root, path));
  }
  writeFileSync(
    join(root, 'vitest.config.ts'),
    "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: ['packages/*', 'tools/*', 'apps/*'] } });\n",
  );
  // Third-party packages from the repo; the workspaces (@toolrow/*, the CLI's toolrow) from the copy.
  const workspaces = WORKSPACES.map((dir) => {
    const { name } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string };
    return { dir, name };
  });
  mkdirSync(join(root, 'node_modules/@toolrow'), { recursive: true });
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === '@toolrow' || entry === '.bin' || workspaces.some(({ name }) => name === entry)) continue;
    symlinkSync(join(REPO, 'node_modules', entry), join(root, 'node_modules', entry));
  }
  symlinkSync(join(REPO, 'node_modules/.bin'), join(root, 'node_modules/.bin'));
  for (const { dir, name } of workspaces) symlinkSync(join(root, dir), join(root, 'node_modules', name));
  return root;
}

// A required input (table and column): every suite that calls each tool calls it with the row's example.
const NEW_ROW = `  {
    name: 'describeColumn',
    description:
      'Describe one column of a table: its type, nullability, default and comment. Use it when one column matters, not the whole table.',
    keywords: ['column details', 'one column', 'type of a column'],
    words: ${JSON.stringify(Object.fromEntries(WORD_LANGUAGES.map((language) => [language, ['column details']])))},
    example: { table: 'orders', column: 'status' },
    asks: ['column details of orders.status', 'show me the column details for the total of orders'],
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
`;

const NEW_IMPLEMENTATION = `
export const describeColumn = defineTool({
  inputSchema: z.strictObject({ table: tableName, column: columnName }),
  async execute(input, ctx) {
    // Silent: from the schema cache, never a query.
    const table = await ctx.source.schema.resolveTable(input.table);
    const column = ctx.source.schema.resolveColumn(table, input.column);
    return {
      table: table.qualifiedName,
      column: column.name,
      type: column.type,
      nullable: column.nullable,
      primaryKey: column.primaryKey,
      ...(column.default !== null ? { default: column.default } : {}),
      ...(column.comment ? { comment: column.comment } : {}),
    };
  },
});
`;

/** What the runtime says about listViews: the registry, `toolrow catalog --cost`'s report, the MCP backend. */
const RUNTIME_PROBE = `
import { toolCostReport } from '@toolrow/agent';
import { createToolrowBackend } from '@toolrow/mcp-server';
import { assertImplementedTool, UNIMPLEMENTED_TOOLS } from '@toolrow/tools';
const said = async (fn) => { try { await fn(); return 'ok'; } catch (error) { return error.message; } };
console.log(JSON.stringify({
  unimplemented: UNIMPLEMENTED_TOOLS,
  registry: await said(() => assertImplementedTool('describeColumn')),
  cost: await said(() => toolCostReport()),
  mcp: await said(() => createToolrowBackend({ source: {}, state: {} })),
}));
`;

describe('edit one row: add describeColumn, then rename it and remove it', () => {
  let root: string;
  beforeAll(async () => {
    root = await copyOfPackages();
    writeFileSync(join(root, 'probe.mjs'), RUNTIME_PROBE);
  }, 120_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const probe = async () => {
    const result = await sh(root, process.execPath, ['--conditions=@toolrow/source', 'probe.mjs']);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as {
      unimplemented: string[];
      registry: string;
      cost: string;
      mcp: string;
    };
  };
  const gen = (...args: string[]) => sh(root, process.execPath, [GEN, '--root', root, ...args]);
  const edit = (path: string, change: (text: string) => string) => {
    const text = readFileSync(join(root, path), 'utf8');
    const changed = change(text);
    expect(changed, path).not.toBe(text);
    writeFileSync(join(root, path), changed);
  };
  const upToDate = async (rows: number) => {
    const check = await gen('--check');
    expect(check.stderr).toBe('');
    expect(check.stdout).toBe(`Generated files are up to date with ${rows} tool rows.\n`);
  };
  /** Vitest on the given files and tsc on the given workspaces, side by side in the copy. */
  const suitesPass = async (files: string[], typechecked: string[]) => {
    const tsc = join(REPO, 'node_modules/.bin/tsc');
    const [vitest, ...typechecks] = await Promise.all([
      sh(root, process.execPath, [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', ...files]),
      ...typechecked.map((dir) => sh(join(root, dir), tsc, ['--noEmit'])),
    ]);
    for (const [i, typecheck] of typechecks.entries()) {
      expect(typecheck.stdout + typecheck.stderr, typechecked[i]).toBe('');
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colours vitest prints
    const report = (vitest.stdout + vitest.stderr).replace(/\u001b\[[0-9;]*m/g, '');
    expect(report).toMatch(/Test Files\s+\d+ passed \(\d+\)/);
    expect(report).not.toMatch(/\d+ failed/);
    expect(vitest.code, report).toBe(0);
  };
  const TYPECHECKED = [
    'packages/tools',
    'packages/agent',
    'packages/mcp-server',
    'packages/eval',
    'tools/codegen',
  ];

  it('gen writes the derived files and the figures in the docs, and prints the next step; the runtime says the same', async () => {
    edit(DECLARATIONS_PATH, (rows) => {
      const at = rows.lastIndexOf('  {', rows.indexOf("name: 'listSavedSpecs'"));
      return rows.slice(0, at) + NEW_ROW + rows.slice(at);
    });

    const result = await gen();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^written\s+packages\/catalog\/src\/generated\/tool-names\.ts$/m);
    // "38 tools" and the other figures the docs give are the generator's to write.
    expect(result.stdout).toMatch(/^written\s+README\.md$/m);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(
      `<!-- rows:tools -->${TOOL_ROWS.length + 1}<!-- /rows -->`,
    );
    expect(result.stdout).toContain('Next: 1 row has no implementation yet');
    expect(result.stdout).toContain(
      '1. in packages/tools/src/tools/schema-tools.ts (beside describeRelations), add\n         export const describeColumn = defineTool({',
    );
    expect(result.stdout).toContain(
      "2. in packages/tools/src/registry.ts, import describeColumn from './tools/schema-tools.ts' and add describeColumn to IMMEDIATE.",
    );

    const said = await probe();
    expect(said.unimplemented).toEqual(['describeColumn']);
    const message =
      'The row describeColumn (packages/declarations/src/tools.ts) has no implementation yet: export `const describeColumn = defineTool({ inputSchema, execute })` from a file in packages/tools/src/tools/ and add describeColumn to IMMEDIATE in packages/tools/src/registry.ts. `npm run gen` names the file.';
    expect(said.registry).toBe(message);
    expect(said.cost).toBe(message);
    expect(said.mcp).toBe(message);
  }, 120_000);

  it('after the implementation and gen for its output schema, every suite that lists the tools passes with no other edit', async () => {
    edit('packages/tools/src/tools/schema-tools.ts', (text) => text + NEW_IMPLEMENTATION);
    edit('packages/tools/src/registry.ts', (text) =>
      text
        .replace(
          '  describeRelations,\n  describeTable,\n',
          '  describeColumn,\n  describeRelations,\n  describeTable,\n',
        )
        .replace(
          '  describeRelations,\n  listSavedSpecs,',
          '  describeRelations,\n  describeColumn,\n  listSavedSpecs,',
        ),
    );
    expect(
      readFileSync(join(root, 'packages/tools/src/registry.ts'), 'utf8').match(/describeColumn/g),
    ).toHaveLength(2);

    // Its output schema is read from what execute returns: --check says it is missing until gen runs.
    const stale = await gen('--check');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('packages/tools/src/generated/output-schemas.ts');
    const regen = await gen();
    expect(regen.stdout).toMatch(/^written\s+packages\/tools\/src\/generated\/output-schemas\.ts$/m);
    const schemas = readFileSync(join(root, 'packages/tools/src/generated/output-schemas.ts'), 'utf8');
    expect(schemas).toMatch(
      /"describeColumn": \{\n {4}"type": "object",\n {4}"properties": \{\n {6}"comment": \{/,
    );
    // The catalog's rows and the one added: no count pinned here (a real new row keeps this passing).
    await upToDate(TOOL_ROWS.length + 1);

    const said = await probe();
    expect(said).toMatchObject({ unimplemented: [], registry: 'ok', mcp: 'ok' });
    expect(said.cost).not.toMatch(/no implementation/);

    await suitesPass(
      [
        'packages/declarations',
        'packages/catalog',
        'packages/tools/src/registry.test.ts',
        'packages/tools/src/schemas.test.ts',
        'packages/tools/src/silent.test.ts',
        'packages/tools/src/security.test.ts',
        'packages/tools/src/tools.test.ts',
        'packages/agent/src/cost.test.ts',
        'packages/agent/src/discovery.test.ts',
        'packages/agent/src/gating.test.ts',
        'packages/agent/src/ladder.test.ts',
        'packages/agent/src/refusal.test.ts',
        'packages/agent/src/models.test.ts',
        'packages/agent/src/search',
        'packages/eval/src/corpus.test.ts',
        'packages/mcp-server/src/scopes.test.ts',
        'packages/mcp-server/src/scope-ceiling.test.ts',
        'packages/mcp-server/src/protocol.test.ts',
        'packages/mcp-server/src/output-schemas.test.ts',
        'packages/mcp-server/src/toolrow.test.ts',
        'apps/cli/src/commands/catalog.test.ts',
        'apps/cli/src/commands/catalog-cost.test.ts',
        'apps/server/src/oauth.test.ts',
        'tools/codegen/src/parity.test.ts',
        'tools/codegen/src/generate.test.ts',
        'tools/lint-declarations',
      ],
      TYPECHECKED,
    );
  }, 600_000);

  it('a rename: formerly keeps the old name, gen names the files still holding it, and after those the checks pass', async () => {
    edit(DECLARATIONS_PATH, (rows) =>
      rows.replace(
        "    name: 'describeColumn',\n",
        "    name: 'columnDetails',\n    formerly: ['describeColumn'],\n",
      ),
    );
    const result = await gen();
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      "'describeColumn' is now 'columnDetails' (its formerly): remembered grants and the audit history follow it. These files still name it; edit them (its implementation, its registry entry, tests, docs):\n  packages/tools/src/registry.ts\n  packages/tools/src/tools/schema-tools.ts\n",
    );
    expect(readFileSync(join(root, 'packages/catalog/src/generated/tool-names.ts'), 'utf8')).toMatch(
      /describeColumn'?: 'columnDetails'/,
    );
    for (const path of ['packages/tools/src/registry.ts', 'packages/tools/src/tools/schema-tools.ts'])
      edit(path, (text) => text.replaceAll('describeColumn', 'columnDetails'));
    const again = await gen();
    expect(again.stdout).not.toContain('still name it');
    await upToDate(TOOL_ROWS.length + 1);
    expect((await probe()).unimplemented).toEqual([]);
    await suitesPass(
      ['packages/tools/src/registry.test.ts', 'packages/catalog', 'tools/codegen/src/parity.test.ts'],
      ['packages/tools'],
    );
  }, 300_000);

  it('a removal: gen names the files still holding the name; after those, the catalog is what it was', async () => {
    edit(DECLARATIONS_PATH, (rows) =>
      rows.replace(
        NEW_ROW.replace(
          "    name: 'describeColumn',\n",
          "    name: 'columnDetails',\n    formerly: ['describeColumn'],\n",
        ),
        '',
      ),
    );
    const result = await gen();
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      "'columnDetails' left the rows. These files still name it; edit them (its implementation, its registry entry, tests, docs):\n  packages/tools/src/registry.ts\n  packages/tools/src/tools/schema-tools.ts\n",
    );
    edit('packages/tools/src/tools/schema-tools.ts', (text) =>
      text.replace(NEW_IMPLEMENTATION.replaceAll('describeColumn', 'columnDetails'), ''),
    );
    edit('packages/tools/src/registry.ts', (text) => text.replaceAll('  columnDetails,\n', ''));
    const again = await gen();
    expect(again.stdout).not.toContain('still name it');
    expect(again.stdout).toMatch(/^written\s+packages\/tools\/src\/generated\/output-schemas\.ts$/m);
    await upToDate(TOOL_ROWS.length);
    // Back to the committed tree, generated files and docs included.
    for (const path of [
      'packages/catalog/src/generated/tool-names.ts',
      'packages/tools/src/generated/output-schemas.ts',
      'README.md',
      DECLARATIONS_PATH,
    ])
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(readFileSync(join(REPO, path), 'utf8'));
    await suitesPass(
      ['packages/tools/src/registry.test.ts', 'tools/codegen/src/parity.test.ts'],
      ['packages/tools'],
    );
  }, 300_000);
});
