import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declarationFiles, formatFinding, lintFiles } from './lint.ts';
import { type ImportKind, scanImports } from './scan.ts';

const rows = "export const TOOL_ROWS = [{ name: 'a' }] as const;\n";

describe('scanImports finds every import form', () => {
  const cases: { form: string; source: string; kind: ImportKind; line: number }[] = [
    { form: 'import … from', source: "import { x } from 'zod';", kind: 'import-from', line: 1 },
    { form: 'default import', source: "import z from 'zod';", kind: 'import-from', line: 1 },
    { form: 'namespace import', source: "import * as fs from 'node:fs';", kind: 'import-from', line: 1 },
    { form: 'import type', source: "import type { Row } from './row';", kind: 'import-type', line: 1 },
    {
      form: 'inline type specifier',
      source: "import { type Row } from './row';",
      kind: 'import-from',
      line: 1,
    },
    { form: 'side-effect import', source: "import 'reflect-metadata';", kind: 'side-effect-import', line: 1 },
    {
      form: 'side-effect import, double quotes',
      source: 'import "./polyfill";',
      kind: 'side-effect-import',
      line: 1,
    },
    {
      form: 'multi-line import',
      source: "import {\n  a,\n  b,\n} from './x';",
      kind: 'import-from',
      line: 1,
    },
    {
      form: 'import on a later line',
      source: `${rows}\n\nimport { y } from 'y';`,
      kind: 'import-from',
      line: 4,
    },
    { form: 'indented import', source: "   import x from 'x';", kind: 'import-from', line: 1 },
    { form: 'import-equals', source: "import fs = require('node:fs');", kind: 'import-equals', line: 1 },
    { form: 'export … from', source: "export { a } from './a';", kind: 'export-from', line: 1 },
    { form: 'export type … from', source: "export type { A } from './a';", kind: 'export-from', line: 1 },
    { form: 'export * from', source: "export * from './a';", kind: 'export-from', line: 1 },
    { form: 'export * as ns from', source: "export * as ns from './a';", kind: 'export-from', line: 1 },
    {
      form: 'multi-line export from',
      source: "export {\n  a,\n  b,\n} from './a';",
      kind: 'export-from',
      line: 1,
    },
    {
      form: 'dynamic import()',
      source: "const m = await import('node:crypto');",
      kind: 'dynamic-import',
      line: 1,
    },
    { form: 'dynamic import with space', source: "const m = import ('x');", kind: 'dynamic-import', line: 1 },
    {
      form: 'dynamic import inside a template expression',
      source: 'const s = `${await import("x")}`;',
      kind: 'dynamic-import',
      line: 1,
    },
    { form: 'require(', source: "const fs = require('node:fs');", kind: 'require', line: 1 },
    { form: 'require with space', source: "const fs = require ('node:fs');", kind: 'require', line: 1 },
    {
      // A quote inside a regex literal once opened a "string" that swallowed the rest of the line.
      form: 'an import after a regex holding a quote',
      source: "const quote = /'/; import { x } from 'x';",
      kind: 'import-from',
      line: 1,
    },
    {
      form: 'an import after a regex with a quote in a class and a slash escaped',
      source: "const r = /[\"\\/]+/g;\nconst q = r.test('a') ? require('fs') : 0;",
      kind: 'require',
      line: 2,
    },
    {
      form: 'process.getBuiltinModule',
      source: "const fs = process.getBuiltinModule('node:fs');",
      kind: 'builtin-module',
      line: 1,
    },
    {
      form: 'getBuiltinModule on globalThis.process',
      source: "const { createHash } = globalThis.process.getBuiltinModule ('node:crypto');",
      kind: 'builtin-module',
      line: 1,
    },
    {
      form: 'triple-slash reference',
      source: '/// <reference types="node" />',
      kind: 'reference-directive',
      line: 1,
    },
  ];

  it.each(cases)('$form', ({ source, kind, line }) => {
    const findings = scanImports(source);
    expect(findings.map((f) => ({ kind: f.kind, line: f.line }))).toContainEqual({ kind, line });
  });
});

describe('scanImports ignores what is not an import', () => {
  const cases: { what: string; source: string }[] = [
    {
      what: 'prose in a line comment',
      source: `// this file must not import anything, not even import type\n${rows}`,
    },
    {
      what: 'prose in a block comment',
      source: `/* we import nothing: import x from 'y' would break the browser */\n${rows}`,
    },
    { what: 'a JSDoc comment', source: `/**\n * import { x } from 'y'\n * require('z')\n */\n${rows}` },
    { what: 'a string that mentions import', source: "export const d = 'import data from a CSV file';" },
    { what: 'a string with require(', source: 'export const d = "call require(\'x\') never";' },
    { what: 'a template literal', source: 'export const d = `import x from "y"`;' },
    { what: 'an identifier containing import', source: 'export const importance = 1; const reimport = 2;' },
    { what: 'a property named import', source: 'export const o = { import: 1 }; o.import;' },
    { what: 'import.meta', source: 'export const u = import.meta.url;' },
    { what: 'a plain export', source: 'export const a = 1;\nexport type B = string;\nexport interface C {}' },
    { what: 'an escaped quote in a string', source: "export const d = 'it\\'s import time';" },
    {
      what: 'a division, not a regex',
      source: "export const half = total / 2; const b = 'import x from y' / 3;",
    },
    { what: 'a regex that mentions import', source: 'export const re = /import x from y/;' },
  ];

  it.each(cases)('$what', ({ source }) => {
    expect(scanImports(source)).toEqual([]);
  });
});

describe('the lint over the declarations package', () => {
  function repoWith(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'toolrow-lint-'));
    mkdirSync(join(root, 'packages/declarations/src'), { recursive: true });
    for (const [name, text] of Object.entries(files))
      writeFileSync(join(root, 'packages/declarations/src', name), text);
    return root;
  }

  it('passes the real declaration file', () => {
    const root = join(import.meta.dirname, '../../..');
    expect(lintFiles(root, declarationFiles(root))).toEqual([]);
  });

  it('scans every source file of the package but not its tests', () => {
    const root = repoWith({
      'tools.ts': rows,
      'extra.ts': rows,
      'tools.test.ts': "import { it } from 'vitest';",
    });
    expect(declarationFiles(root)).toEqual([
      'packages/declarations/src/extra.ts',
      'packages/declarations/src/tools.ts',
    ]);
  });

  it('names file:line and the form when an import is planted', () => {
    const root = repoWith({ 'tools.ts': `${rows}import { createHash } from 'node:crypto';\n` });
    const findings = lintFiles(root, declarationFiles(root));
    expect(findings).toHaveLength(1);
    expect(formatFinding(findings[0]!)).toBe(
      "packages/declarations/src/tools.ts:2: an import declaration is not allowed here: import { createHash } from 'node:crypto';",
    );
  });
});
