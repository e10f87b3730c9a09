// The user's workflow, end to end with the real CLI on a real file system: copy the rows, edit
// one, see --check fail, regenerate, and see the derived tables change.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOOL_NAMES } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { DECLARATIONS_PATH } from './header.ts';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../../..');
const CLI = join(import.meta.dirname, 'cli.ts');

async function gen(
  root: string,
  ...flags: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, '--root', root, ...flags]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function copyOfRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'toolrow-workflow-'));
  mkdirSync(join(root, 'packages/declarations/src'), { recursive: true });
  cpSync(join(REPO, DECLARATIONS_PATH), join(root, DECLARATIONS_PATH));
  for (const dir of [
    'packages/catalog/src/generated',
    'packages/mcp-server/src/generated',
    'packages/tools/src/generated',
  ]) {
    cpSync(join(REPO, dir), join(root, dir), { recursive: true });
  }
  return root;
}

describe('edit one row and regenerate', () => {
  it('the committed generated files match the rows', async () => {
    const result = await gen(REPO, '--check');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`up to date with ${TOOL_NAMES.length} tool rows`);
  });

  it('flipping proposeExport from staged to full moves it between scope lists, and --check fails until gen runs', async () => {
    const root = copyOfRepo();
    const rowsPath = join(root, DECLARATIONS_PATH);
    const scopesPath = join(root, 'packages/mcp-server/src/generated/mcp-scopes.ts');
    const scopesBefore = readFileSync(scopesPath, 'utf8');
    expect(scopesBefore).toMatch(/proposeExport: 'tables:staged'/);

    const rows = readFileSync(rowsPath, 'utf8');
    const edited = rows.replace(/(name: 'proposeExport',[\s\S]*?mcp: )'staged'/, "$1'full'");
    expect(edited).not.toBe(rows);
    writeFileSync(rowsPath, edited);

    const stale = await gen(root, '--check');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('packages/mcp-server/src/generated/mcp-scopes.ts');
    expect(stale.stderr).toContain('Run `npm run gen`');
    expect(readFileSync(scopesPath, 'utf8')).toBe(scopesBefore);

    const written = await gen(root);
    expect(written.code).toBe(0);
    expect(written.stdout).toMatch(/written\s+packages\/mcp-server\/src\/generated\/mcp-scopes\.ts/);
    expect(written.stdout).toMatch(/1 of 6 generated files changed/);
    const scopesAfter = readFileSync(scopesPath, 'utf8');
    expect(scopesAfter).toMatch(/proposeExport: 'tables:full'/);
    const stagedList = /'tables:staged': \[([\s\S]*?)\]/.exec(scopesAfter)![1]!;
    expect(stagedList).not.toContain('proposeExport');

    expect((await gen(root, '--check')).code).toBe(0);
  });

  it('a row error stops the generator, names file:line, and writes nothing', async () => {
    const root = copyOfRepo();
    const rowsPath = join(root, DECLARATIONS_PATH);
    const rows = readFileSync(rowsPath, 'utf8');
    // A silent row that claims to write files.
    writeFileSync(rowsPath, rows.replace(/(name: 'listTables',[\s\S]*?writes: )'none'/, "$1'files'"));
    const tiers = readFileSync(join(root, 'packages/catalog/src/generated/tiers.ts'), 'utf8');
    const result = await gen(root);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /packages\/declarations\/src\/tools\.ts:\d+: row 'listTables': a silent row runs without asking anyone/,
    );
    expect(result.stderr).toContain('Nothing was written.');
    expect(readFileSync(join(root, 'packages/catalog/src/generated/tiers.ts'), 'utf8')).toBe(tiers);
  });
});
