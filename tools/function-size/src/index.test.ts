import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCovered, longFunctions } from './index.ts';

describe('the function-size bar', () => {
  it('covers what people write in apps/ and packages/, not tests, generated files or builds', () => {
    expect(isCovered('/r/apps/desktop/src/ui/App.tsx')).toBe(true);
    expect(isCovered('/r/packages/state/src/staging.ts')).toBe(true);
    expect(isCovered('/r/packages/state/src/staging.test.ts')).toBe(false);
    expect(isCovered('/r/packages/catalog/src/generated/tiers.ts')).toBe(false);
    expect(isCovered('/r/packages/state/dist/index.js')).toBe(false);
    expect(isCovered('/r/tools/codegen/src/generate.ts')).toBe(false);
  });

  it('names each function over the bar by file, line and name, longest first; one at the bar passes', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolrow-size-'));
    const body = (lines: number) =>
      Array.from({ length: lines - 2 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    writeFileSync(
      join(root, 'a.ts'),
      `export function fits() {\n${body(200)}\n}\nexport const tooLong = () => {\n${body(205)}\n};\nclass C {\n  method() {\n${body(210)}\n  }\n}\n`,
    );
    expect(longFunctions(root, [join(root, 'a.ts')])).toEqual([
      { file: 'a.ts', line: 407, name: 'method', lines: 210 },
      { file: 'a.ts', line: 201, name: 'tooLong', lines: 205 },
    ]);
  });
});
