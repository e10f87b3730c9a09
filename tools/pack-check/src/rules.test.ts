import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPackedPackage, exportEntries, isTestFile } from './rules.ts';

const LICENSE = 'Apache License\nVersion 2.0, January 2004\n';

const MANIFEST = {
  name: '@toolrow/example',
  version: '0.2.0',
  license: 'Apache-2.0',
  keywords: ['toolrow'],
  homepage: 'https://example.test/toolrow#readme',
  bugs: { url: 'https://example.test/toolrow/issues' },
  repository: { type: 'git', url: 'git+https://example.test/toolrow.git', directory: 'packages/example' },
  type: 'module',
  exports: {
    '.': { '@toolrow/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
    './package.json': './package.json',
  },
};

/** A package folder as `npm pack` extracts it, with nothing wrong. */
function goodPackage(): Record<string, string> {
  return {
    'package.json': JSON.stringify(MANIFEST),
    LICENSE,
    'CHANGELOG.md': '# @toolrow/example\n\n## 0.2.0\n',
    'README.md': '# example\n',
    'src/index.ts': 'export const x = 1;\n',
    'dist/index.js': 'export const x = 1;\n',
    'dist/index.d.ts': 'export declare const x = 1;\n//# sourceMappingURL=index.d.ts.map\n',
    'dist/index.d.ts.map': JSON.stringify({ version: 3, file: 'index.d.ts', sources: ['../src/index.ts'] }),
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function check(files: Record<string, string | undefined>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'toolrow-pack-rules-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    if (content === undefined) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return checkPackedPackage({ dir, directory: 'packages/example', license: LICENSE });
}

describe('the packed-package rules', () => {
  it('pass a complete package', () => {
    expect(check(goodPackage())).toEqual([]);
  });

  const failures: [string, Record<string, string | undefined>, RegExp][] = [
    [
      'a tarball lacking dist',
      {
        'dist/index.js': undefined,
        'dist/index.d.ts': undefined,
        'dist/index.d.ts.map': undefined,
      },
      /ships no dist\/: .*"prepack": "npm run build"/,
    ],
    [
      'a tarball lacking one exported file',
      { 'dist/index.js': undefined },
      /exports points at \.\/dist\/index\.js/,
    ],
    ['a tarball lacking LICENSE', { LICENSE: undefined }, /ships no LICENSE: copy the repository's LICENSE/],
    ['a LICENSE that is not the repository one', { LICENSE: 'MIT\n' }, /LICENSE differs/],
    [
      'a tarball lacking CHANGELOG.md',
      { 'CHANGELOG.md': undefined },
      /ships no CHANGELOG\.md: add "CHANGELOG\.md" to "files"/,
    ],
    ['a test file in src', { 'src/tools.test.ts': 'test' }, /ships the test file src\/tools\.test\.ts/],
    [
      'a compiled test file in dist',
      { 'dist/tools.test.js': 'test' },
      /ships the test file dist\/tools\.test\.js/,
    ],
    ['test fixtures', { 'src/test-fixtures.ts': 'x' }, /ships the test file src\/test-fixtures\.ts/],
    [
      'a declaration without its map',
      { 'dist/index.d.ts.map': undefined },
      /has no declaration map: set "declarationMap": true/,
    ],
    [
      'a declaration map pointing at unshipped source',
      { 'src/index.ts': undefined, 'dist/index.d.ts.map': JSON.stringify({ sources: ['../src/index.ts'] }) },
      /points go-to-definition at src\/index\.ts/,
    ],
    [
      'a manifest without repository, homepage, bugs or keywords',
      {
        'package.json': JSON.stringify({
          ...MANIFEST,
          repository: undefined,
          homepage: undefined,
          bugs: undefined,
          keywords: [],
        }),
      },
      /has no "repository"/,
    ],
    [
      'a repository.directory that is not the package folder',
      {
        'package.json': JSON.stringify({
          ...MANIFEST,
          repository: { ...MANIFEST.repository, directory: 'packages' },
        }),
      },
      /"repository\.directory" is packages, not packages\/example/,
    ],
  ];

  it.each(failures)('fail %s', (_what, change, message) => {
    const problems = check({ ...goodPackage(), ...change });
    expect(problems).toContainEqual(expect.stringMatching(message));
  });

  it('name each missing manifest field', () => {
    const problems = check({
      ...goodPackage(),
      'package.json': JSON.stringify({
        ...MANIFEST,
        homepage: undefined,
        bugs: undefined,
        keywords: undefined,
      }),
    });
    expect(problems).toEqual(['has no "homepage".', 'has no "bugs": { "url" }.', 'has no "keywords".']);
  });

  it('tell test files from entry points named testing', () => {
    expect(isTestFile('src/testing.ts')).toBe(false);
    expect(isTestFile('dist/testing.d.ts')).toBe(false);
    expect(isTestFile('dist/testing.js.map')).toBe(false);
    expect(isTestFile('src/registry.test.ts')).toBe(true);
    expect(isTestFile('dist/registry.test.d.ts')).toBe(true);
    expect(isTestFile('test/helpers.ts')).toBe(true);
    expect(isTestFile('src/__tests__/a.ts')).toBe(true);
  });

  it('list the entries a consumer imports, without ./package.json', () => {
    expect(
      exportEntries({ name: '@toolrow/agent', exports: { '.': {}, './testing': {}, './package.json': '' } }),
    ).toEqual(['@toolrow/agent', '@toolrow/agent/testing']);
  });
});
