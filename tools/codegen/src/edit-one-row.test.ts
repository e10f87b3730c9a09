// "Edit one row", as a team adding a tool meets it: in a copy of the packages a row touches, add
// the row listViews and run `npm run gen` (the real CLI on the copy): it names the file and the
// entry to write, and the runtime says the same instead of crashing. Then write the
// implementation only (no test edits), run gen again for its output schema (read from what it
// returns), and the checks a new row touches pass in the copy.
//
// Why a subset and not the whole suite in the copy: the suite takes many minutes (databases,
// Chromium, child processes) and most of it never reads the rows. What a row reaches is the
// generator, the registry (every row implemented, every schema described), the derived counts
// (the MCP scope matrix, the seed conformance test), and the types of the packages that key on
// tool names; those run here.
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
// Every library package (the generator writes into several, and they import each other), and the generator.
const COPIED = [
  ...readdirSync(join(REPO, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}`),
  'tools/codegen',
];

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
    "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: ['packages/*', 'tools/*'] } });\n",
  );
  // Third-party packages from the repo; @toolrow/* from the copy.
  mkdirSync(join(root, 'node_modules/@toolrow'), { recursive: true });
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === '@toolrow' || entry === '.bin') continue;
    symlinkSync(join(REPO, 'node_modules', entry), join(root, 'node_modules', entry));
  }
  symlinkSync(join(REPO, 'node_modules/.bin'), join(root, 'node_modules/.bin'));
  for (const dir of COPIED.filter((path) => path.startsWith('packages/'))) {
    const { name } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string };
    symlinkSync(join(root, dir), join(root, 'node_modules', name));
  }
  return root;
}

const LIST_VIEWS_ROW = `  {
    name: 'listViews',
    description:
      'List the views of the active connection with their schema. Use it when the user asks for views, or a name is not among the tables.',
    keywords: ['views', 'virtual tables', 'saved queries'],
    words: ${JSON.stringify(Object.fromEntries(WORD_LANGUAGES.map((language) => [language, ['views']])))},
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
`;

const LIST_VIEWS_IMPLEMENTATION = `
export const listViews = defineTool({
  inputSchema: z.strictObject({
    schema: textField(200).optional().describe('Only views of this schema (default: all).'),
  }),
  async execute(input, ctx) {
    // Silent: from the schema cache, never a query.
    const snapshot = await ctx.source.schema.get();
    const views = snapshot.tables.filter(
      (table) =>
        (table.kind === 'view' || table.kind === 'materialized view') &&
        (input.schema === undefined || table.schema.toLowerCase() === input.schema.toLowerCase()),
    );
    const entries = views.map((view) => ({ name: view.qualifiedName, kind: view.kind, comment: view.comment }));
    const [shown = []] = pagesOf(entries, RESULT_TOKEN_BUDGET - 200, tokensOf);
    return { views: shown, truncated: shown.length < entries.length };
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
  registry: await said(() => assertImplementedTool('listViews')),
  cost: await said(() => toolCostReport()),
  mcp: await said(() => createToolrowBackend({ source: {}, state: {} })),
}));
`;

describe('edit one row: add listViews', () => {
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

  it('gen writes the derived files and prints the next step; the runtime says the same', async () => {
    const rowsPath = join(root, DECLARATIONS_PATH);
    const rows = readFileSync(rowsPath, 'utf8');
    const at = rows.lastIndexOf('  {', rows.indexOf("name: 'listSavedSpecs'"));
    writeFileSync(rowsPath, rows.slice(0, at) + LIST_VIEWS_ROW + rows.slice(at));

    const gen = await sh(root, process.execPath, [GEN, '--root', root]);
    expect(gen.stderr).toBe('');
    expect(gen.code).toBe(0);
    expect(gen.stdout).toMatch(/^written\s+packages\/catalog\/src\/generated\/tool-names\.ts$/m);
    expect(gen.stdout).toContain('Next: 1 row has no implementation yet');
    expect(gen.stdout).toContain(
      '1. in packages/tools/src/tools/schema-tools.ts (beside describeRelations), add\n         export const listViews = defineTool({',
    );
    expect(gen.stdout).toContain(
      "2. in packages/tools/src/registry.ts, import listViews from './tools/schema-tools.ts' and add listViews to IMMEDIATE.",
    );

    const said = await probe();
    expect(said.unimplemented).toEqual(['listViews']);
    const message =
      'The row listViews (packages/declarations/src/tools.ts) has no implementation yet: export `const listViews = defineTool({ inputSchema, execute })` from a file in packages/tools/src/tools/ and add listViews to IMMEDIATE in packages/tools/src/registry.ts. `npm run gen` names the file.';
    expect(said.registry).toBe(message);
    expect(said.cost).toBe(message);
    expect(said.mcp).toBe(message);
  }, 120_000);

  it('after writing the implementation and running gen for its output schema, the types hold and the row checks pass', async () => {
    const tools = join(root, 'packages/tools/src/tools/schema-tools.ts');
    writeFileSync(tools, readFileSync(tools, 'utf8') + LIST_VIEWS_IMPLEMENTATION);
    const registryPath = join(root, 'packages/tools/src/registry.ts');
    const registry = readFileSync(registryPath, 'utf8')
      .replace('  listConnections,\n  listTables,\n', '  listConnections,\n  listTables,\n  listViews,\n')
      .replace(
        '  describeRelations,\n  listSavedSpecs,',
        '  describeRelations,\n  listViews,\n  listSavedSpecs,',
      );
    expect(registry.match(/listViews/g)).toHaveLength(2);
    writeFileSync(registryPath, registry);

    // Its output schema is read from what execute returns: --check says it is missing until gen runs.
    const stale = await sh(root, process.execPath, [GEN, '--root', root, '--check']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('packages/tools/src/generated/output-schemas.ts');
    const regen = await sh(root, process.execPath, [GEN, '--root', root]);
    expect(regen.stdout).toMatch(/^written\s+packages\/tools\/src\/generated\/output-schemas\.ts$/m);
    const schemas = readFileSync(join(root, 'packages/tools/src/generated/output-schemas.ts'), 'utf8');
    expect(schemas).toMatch(/"listViews": \{\n {4}"type": "object",\n {4}"properties": \{\n {6}"views": \{/);
    const gen = await sh(root, process.execPath, [GEN, '--root', root, '--check']);
    expect(gen.stderr).toBe('');
    // The catalog's rows and the one added: no count pinned here (a real new row keeps this passing).
    expect(gen.stdout).toBe(`Generated files are up to date with ${TOOL_ROWS.length + 1} tool rows.\n`);

    const said = await probe();
    expect(said).toMatchObject({ unimplemented: [], registry: 'ok', mcp: 'ok' });
    expect(said.cost).not.toMatch(/no implementation/);

    const tsc = join(REPO, 'node_modules/.bin/tsc');
    // Side by side: each is its own process, and one after another they were most of this file's time.
    const dirs = ['packages/tools', 'packages/agent', 'packages/mcp-server', 'tools/codegen'];
    const [vitest, ...typechecks] = await Promise.all([
      sh(root, process.execPath, [
        join(REPO, 'node_modules/vitest/vitest.mjs'),
        'run',
        'packages/tools/src/registry.test.ts',
        'packages/tools/src/silent.test.ts',
        'packages/catalog',
        'packages/mcp-server/src/scopes.test.ts',
        'tools/codegen/src/parity.test.ts',
        'tools/codegen/src/generate.test.ts',
      ]),
      ...dirs.map((dir) => sh(join(root, dir), tsc, ['--noEmit'])),
    ]);
    for (const [i, typecheck] of typechecks.entries()) {
      expect(typecheck.stdout + typecheck.stderr, dirs[i]).toBe('');
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colours vitest prints
    const report = (vitest.stdout + vitest.stderr).replace(/\u001b\[[0-9;]*m/g, '');
    expect(report).toMatch(/Test Files\s+\d+ passed \(\d+\)/);
    expect(report).not.toMatch(/failed/);
    expect(vitest.code, report).toBe(0);
  }, 300_000);
});
