import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DISCOVERABLE_TOOLS,
  GATED_TOOLS,
  INLINE_TOOLS,
  inlineToolsOf,
  isServedBy,
  LOOP_TOOLS,
  PROPOSE_TWINS,
  SILENT_TOOLS,
  TOOL_NAMES,
  toolsServedBy,
} from '@toolrow/catalog';
import { TOOL_ROWS } from '@toolrow/declarations';
import { installedEngines } from '@toolrow/engines';
import { MCP_EXCLUDED_TOOLS, MCP_SCOPE_TOOLS, MCP_SCOPES } from '@toolrow/mcp-server';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

interface JsonRow {
  name: string;
  visibility: string;
  tier: string;
  access?: string;
  twin?: string;
  mcp: string;
  writes: string;
  keywords: string[];
  description: string;
}

const count = (rows: JsonRow[], predicate: (row: JsonRow) => boolean) => rows.filter(predicate).length;

describe('toolrow catalog', () => {
  // The seed's counts are pinned once, in tools/codegen/src/parity.test.ts; here they derive from the catalog.
  it('--json prints every row with its fields, and the counts match the catalog', async () => {
    const result = await spawnCli(['catalog', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as JsonRow[];
    expect(rows).toEqual(JSON.parse(JSON.stringify(TOOL_ROWS)));
    expect({
      rows: rows.length,
      inline: count(rows, (row) => row.visibility === 'inline'),
      discoverable: count(rows, (row) => row.visibility === 'discoverable'),
      silent: count(rows, (row) => row.tier === 'silent'),
      gated: count(rows, (row) => row.tier === 'gated'),
      loop: count(rows, (row) => row.tier === 'loop'),
      pairs: count(rows, (row) => row.twin !== undefined),
      excluded: count(rows, (row) => row.mcp === 'excluded'),
    }).toEqual({
      rows: TOOL_NAMES.length,
      inline: INLINE_TOOLS.length,
      discoverable: DISCOVERABLE_TOOLS.length,
      silent: SILENT_TOOLS.length,
      gated: GATED_TOOLS.length,
      loop: LOOP_TOOLS.length,
      pairs: Object.keys(PROPOSE_TWINS).length,
      excluded: MCP_EXCLUDED_TOOLS.length,
    });
  });

  it('prints a readable table with the derived memberships and a summary line', async () => {
    const result = await runCli(['catalog']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^#\s+name\s+tier\s+access\s+visibility\s+twin\s+writes\s+engines\s+MCP scopes that list it$/,
    );
    expect(lines.find((line) => /\bstartExport\b/.test(line) && !/proposeExport/.test(line))).toMatch(
      /startExport\s+gated\s+export\s+discoverable\s+-\s+files\s+all\s+full$/,
    );
    expect(lines.find((line) => /\bproposeExport\b/.test(line))).toMatch(
      /proposeExport\s+gated\s+propose\s+discoverable\s+startExport\s+ui\s+all\s+staged,full$/,
    );
    expect(lines.find((line) => /\bsearchTools\b/.test(line))).toMatch(
      /searchTools\s+loop\s+-\s+inline\s+-\s+none\s+all\s+-$/,
    );
    const scopes = MCP_SCOPES.map((scope) => `${MCP_SCOPE_TOOLS[scope].length} ${scope}`).join(', ');
    expect(result.stdout).toContain(
      `${TOOL_NAMES.length} rows: ${INLINE_TOOLS.length} inline, ${DISCOVERABLE_TOOLS.length} discoverable; ${SILENT_TOOLS.length} silent, ${GATED_TOOLS.length} gated, ${LOOP_TOOLS.length} loop; ${Object.keys(PROPOSE_TWINS).length} immediate/propose pairs; MCP lists ${scopes}; ${MCP_EXCLUDED_TOOLS.length} excluded.`,
    );
  });

  it('--engine postgres lists the catalog as it was before engines; another engine lists only its rows', async () => {
    const all = await runCli(['catalog', '--json']);
    const postgres = await runCli(['catalog', '--engine', 'postgres', '--json']);
    expect(postgres.code).toBe(0);
    expect(JSON.parse(postgres.stdout)).toEqual(JSON.parse(all.stdout));
    const table = await runCli(['catalog', '--engine', 'postgres']);
    expect(table.stdout.split('\n\n')[0]).toBe((await runCli(['catalog'])).stdout.split('\n\n')[0]);
    // Every installed engine, as its descriptor declares its features.
    for (const { id, features } of installedEngines.engines) {
      const view = { engine: id, features };
      const result = await runCli(['catalog', '--engine', id, '--json']);
      expect((JSON.parse(result.stdout) as JsonRow[]).map((row) => row.name)).toEqual([
        ...toolsServedBy(view),
      ]);
      const summary = (await runCli(['catalog', '--engine', id])).stdout;
      expect(summary).toContain(
        `On ${id}: ${toolsServedBy(view).length} rows: ${inlineToolsOf(view).length} inline, ${DISCOVERABLE_TOOLS.filter((name) => isServedBy(view, name)).length} discoverable;`,
      );
      for (const name of TOOL_NAMES.filter((each) => !isServedBy(view, each)))
        expect(summary).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
  });

  it('--engine names the engines when it gets one it does not know', async () => {
    const result = await runCli(['catalog', '--engine', 'oracle']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Unknown engine 'oracle' for --engine. Use one of: ${installedEngines.engines.map((engine) => engine.id).join(', ')}.`,
    );
  });

  it('--audit runs as CI runs it: per-row figures and recommendations, exit 0 while every discoverable row is named', async () => {
    const result = await spawnCli(['catalog', '--audit']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^tool\s+declared\s+requests\s+named\s+recommended\s+note$/);
    expect(lines.find((line) => /^listAuditLog\s/.test(line))).toMatch(
      /^listAuditLog\s+discoverable\s+\d+\s+\d+ \(\d+%\)\s+discoverable\s+ok$/,
    );
    expect(lines.find((line) => /^describeTable\s/.test(line))).toMatch(
      /^describeTable\s+inline\s+\d+\s+\d+ \(\d+%\)\s+inline\s+ok$/,
    );
    expect(result.stdout).toContain('Every discoverable row is named often enough.');
    expect(result.stdout).toMatch(
      /a discoverable row must be named by at least 50% of its requests \(NAMING_THRESHOLD in @toolrow\/eval\)/,
    );
  });

  it('--audit --eval adds what the model searched for and found; --json has the figures', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'toolrow-audit-'));
    try {
      const tools = TOOL_ROWS.map((row) => ({
        tool: row.name,
        visibility: row.visibility,
        attempts: row.name === 'explainQuery' ? 4 : 0,
        passRate: 0.25,
        searchRate: 0.5,
        foundRate: 0.25,
        wrongTwinPicks: 0,
      }));
      await writeFile(
        join(dir, 'run.json'),
        JSON.stringify({ format: 'toolrow-eval/1', tools, requests: [], summary: {} }),
      );
      const table = await runCli(['catalog', '--audit', '--eval', 'run.json'], {}, dir);
      expect(table.code).toBe(0);
      expect(table.stdout.split('\n').find((line) => /^explainQuery\s/.test(line))).toMatch(
        /explainQuery\s+discoverable\s+\d+\s+\d+ \(\d+%\)\s+50%\s+25%\s+discoverable\s+the model's searches found it in only 25% of attempts$/,
      );
      const json = await runCli(['catalog', '--audit', '--json', '--eval', 'run.json'], {}, dir);
      const audit = JSON.parse(json.stdout) as {
        threshold: number;
        rows: { tool: string; foundRate?: number }[];
      };
      expect(audit.threshold).toBe(0.5);
      expect(audit.rows.find((row) => row.tool === 'explainQuery')?.foundRate).toBe(0.25);
      const missing = await runCli(['catalog', '--audit', '--eval', 'nope.json'], {}, dir);
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('cannot read')]);
      const alone = await runCli(['catalog', '--eval', 'run.json'], {}, dir);
      expect([alone.code, alone.stderr]).toEqual([
        2,
        expect.stringContaining('--eval <run.json> goes with --audit.'),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown flag with the nearest option, its synopsis and exit code 2', async () => {
    const result = await runCli(['catalog', '--jsno']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unknown option '--jsno'\. Did you mean '--json'\?\n/);
    expect(result.stderr).toContain('Usage: toolrow catalog');
    expect(result.stderr).toContain('Run `toolrow catalog --help` for every option.');
    // The synopsis, not the whole help over the error: --help has that.
    const wrong = await runCli(['eval', '--limt', '3']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^Unknown option '--limt'\. Did you mean '--limit'\?/);
    expect(wrong.stderr).toContain('Usage: toolrow eval');
    expect((await runCli(['eval', '--help'])).stdout).toContain('--fail-under <pct>');
    expect(wrong.stderr).not.toContain('--fail-under <pct>');
  });
});

describe('toolrow', () => {
  it('lists its commands', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Commands:\n[\s\S]*catalog\s+Show the tool rows/);
  });

  it('names an unknown command and exits 2', async () => {
    const result = await runCli(['catalgo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unknown command 'catalgo'. Did you mean 'catalog'\?/);
  });
});

describe('commands that only read the catalog', () => {
  const counter = fileURLToPath(new URL('../../bench/count-modules.mjs', import.meta.url));

  it.each([[['catalog']], [['catalog', '--json']], [['search-tools', 'export this as CSV']]])(
    'toolrow %j loads no dependency from node_modules (no zod, pg, PGlite, MCP or AI SDK)',
    async (argv) => {
      const dir = await mkdtemp(join(tmpdir(), 'toolrow-modules-'));
      try {
        const file = join(dir, 'count.json');
        const result = await spawnCli(argv, {
          env: { NODE_OPTIONS: `--import ${counter}`, TOOLROW_MODULE_COUNT: file },
        });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const loaded = JSON.parse(await readFile(file, 'utf8')) as { modules: number; packages: string[] };
        expect(loaded.packages).toEqual([]);
        // The workspace's own modules only: main, the command, the catalog and its declarations.
        expect(loaded.modules).toBeLessThan(40);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
