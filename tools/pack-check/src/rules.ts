// What a packed public package must hold, checked on the tarball's extracted contents (the
// `package/` folder `npm pack` writes), so the rules judge what a consumer downloads, not the repo.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

export interface PackedPackage {
  /** The extracted tarball's package folder. */
  dir: string;
  /** Where the package lives in the repository, e.g. packages/catalog (its `repository.directory`). */
  directory: string;
  /** The repository's LICENSE text: every package ships the same. */
  license: string;
}

/** Test files and their fixtures: they belong in the repository, never in a tarball. */
const TEST_FILE =
  /(^|\/)(__tests__|test|tests|fixtures)\/|\.(test|spec)\.[cm]?[jt]sx?(\.map)?$|\.(test|spec)\.d\.[cm]?ts(\.map)?$|(^|\/)test-fixtures\.[^/]*$/;

export function isTestFile(path: string): boolean {
  return TEST_FILE.test(path);
}

/** Every file below `dir`, as posix paths relative to it, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Every file path an `exports` map points at, whatever the condition. */
export function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports as Record<string, unknown>).flatMap(exportTargets);
}

/** The subpaths a consumer imports (`.`, `./testing`…), without `./package.json`. */
export function exportEntries(manifest: { name: string; exports?: unknown }): string[] {
  const exports = manifest.exports;
  if (exports === undefined || typeof exports === 'string') return [manifest.name];
  return Object.keys(exports as Record<string, unknown>)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/** The problems of one packed package, each naming what is wrong and how to fix it; [] when it is fine. */
export function checkPackedPackage(packed: PackedPackage): string[] {
  const problems: string[] = [];
  const manifestPath = join(packed.dir, 'package.json');
  if (!existsSync(manifestPath)) return [`the tarball has no package.json`];
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
    name: string;
  };
  const files = listFiles(packed.dir);
  const has = new Set(files);

  if (!files.some((file) => file.startsWith('dist/'))) {
    problems.push(
      'ships no dist/: the package was packed unbuilt. Give it "prepack": "npm run build" so `npm pack` and `npm publish` build first.',
    );
  }
  for (const target of new Set(exportTargets(manifest.exports))) {
    const path = posix.normalize(target);
    if (!has.has(path)) problems.push(`exports points at ${target}, which the tarball does not hold.`);
  }

  if (!has.has('LICENSE')) {
    problems.push(`ships no LICENSE: copy the repository's LICENSE into ${packed.directory}/.`);
  } else if (readFileSync(join(packed.dir, 'LICENSE'), 'utf8') !== packed.license) {
    problems.push(
      `its LICENSE differs from the repository's: copy the root LICENSE into ${packed.directory}/.`,
    );
  }
  if (!has.has('CHANGELOG.md')) {
    problems.push(
      `ships no CHANGELOG.md: add "CHANGELOG.md" to "files" in ${packed.directory}/package.json (changesets writes it).`,
    );
  }

  for (const file of files.filter(isTestFile)) {
    problems.push(
      `ships the test file ${file}: exclude it in "files" (e.g. "!src/**/*.test.ts") or in tsconfig.build.json.`,
    );
  }

  for (const declaration of files.filter((file) => file.startsWith('dist/') && /\.d\.[cm]?ts$/.test(file))) {
    const map = `${declaration}.map`;
    if (!has.has(map)) {
      problems.push(
        `${declaration} has no declaration map: set "declarationMap": true in tsconfig.build.json.`,
      );
      continue;
    }
    const { sources } = JSON.parse(readFileSync(join(packed.dir, map), 'utf8')) as { sources?: string[] };
    for (const source of sources ?? []) {
      const shipped = posix.normalize(posix.join(posix.dirname(map), source));
      if (!has.has(shipped))
        problems.push(`${map} points go-to-definition at ${shipped}, which the tarball does not hold.`);
    }
  }

  if (manifest.license !== 'Apache-2.0')
    problems.push(`"license" is ${String(manifest.license)}, not Apache-2.0.`);
  const repository = manifest.repository as { url?: unknown; directory?: unknown } | undefined;
  if (typeof repository?.url !== 'string')
    problems.push('has no "repository": { "type", "url", "directory" }.');
  else if (repository.directory !== packed.directory)
    problems.push(`"repository.directory" is ${String(repository.directory)}, not ${packed.directory}.`);
  if (typeof manifest.homepage !== 'string') problems.push('has no "homepage".');
  if (typeof (manifest.bugs as { url?: unknown } | undefined)?.url !== 'string')
    problems.push('has no "bugs": { "url" }.');
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0)
    problems.push('has no "keywords".');
  return problems;
}
