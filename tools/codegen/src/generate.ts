import { posix } from 'node:path';
import { type FileSystemHost, Project } from 'ts-morph';
import { deriveCatalog } from './derive.ts';
import { DOCS_WITH_FIGURES, docFigures, withFigures } from './doc-figures.ts';
import { EMITTERS, type Emitter } from './emitters/index.ts';
import { DECLARATIONS_PATH, GENERATED_HEADER } from './header.ts';
import { findMissingImplementations, type ImplementationReport } from './implementations.ts';
import { type JsonSchema, readOutputSchemas } from './output-schemas.ts';
import { readRows } from './read-rows.ts';
import type { LocatedRow } from './row-model.ts';
import { validateRows } from './validate.ts';

export type FileStatus = 'written' | 'unchanged' | 'stale' | 'deleted' | 'orphan';

export interface FileReport {
  /** Relative to the repository root. */
  path: string;
  status: FileStatus;
}

export interface GenerateOptions {
  /** The repository root (absolute). */
  root: string;
  /** Report what would change instead of writing. */
  check?: boolean;
  /** Defaults to a project on the real file system; tests pass an in-memory one. */
  project?: Project;
  emitters?: readonly Emitter[];
  declarationsPath?: string;
  /**
   * The tools' output schemas. Default: read from the registry's types under `root` with the type
   * checker (on the real file system; with a `project` of their own, tests pass them or go without).
   */
  outputSchemas?: Readonly<Record<string, JsonSchema>>;
  /** The docs whose row figures the generator keeps true (default DOCS_WITH_FIGURES). */
  docs?: readonly string[];
}

export interface GenerateResult {
  rows: LocatedRow[];
  files: FileReport[];
  /** In check mode: the files that differ from what the rows produce. */
  stale: FileReport[];
  /** Rows the tools registry does not implement yet (absent when the root has no registry). */
  implementations?: ImplementationReport;
  /**
   * Names the committed catalog had that no row has now (a row removed, or renamed: `renamedTo`),
   * with the files that still name them: what to edit next.
   */
  leftovers: { name: string; renamedTo?: string; files: string[] }[];
  /** What the generator could not type (an output field of `any` or `unknown`), to fix in the code. */
  warnings: string[];
}

/** Reads and validates the rows from the declaration file's AST. Throws RowErrors naming file:line. */
export function loadRows(project: Project, root: string, declarationsPath = DECLARATIONS_PATH): LocatedRow[] {
  const absolute = posix.join(root, declarationsPath);
  const fs = project.getFileSystem();
  if (!fs.fileExistsSync(absolute))
    throw new Error(`The declaration file ${declarationsPath} does not exist under ${root}.`);
  const sourceFile = project.getSourceFile(absolute) ?? project.addSourceFileAtPath(absolute);
  const rows = readRows(sourceFile, declarationsPath);
  validateRows(rows);
  return rows;
}

/** Renders every emitter's file in memory, in emitter order. */
export function renderFiles(
  rows: readonly LocatedRow[],
  emitters: readonly Emitter[] = EMITTERS,
  outputSchemas?: Readonly<Record<string, JsonSchema>>,
): { path: string; content: string }[] {
  const plain = rows.map(({ row }) => row);
  const catalog = deriveCatalog(plain);
  const input = {
    rows: plain,
    catalog,
    header: GENERATED_HEADER,
    ...(outputSchemas ? { outputSchemas } : {}),
  };
  return emitters.flatMap((emitter) => {
    const content = emitter.emit(input);
    return content === undefined ? [] : [{ path: emitter.path, content }];
  });
}

/**
 * Regenerates every derived file from the rows, writing only files whose content changed and
 * removing files in the generated folders that no emitter produces. With `check`, writes
 * nothing and reports the stale files instead.
 */
export function generate(options: GenerateOptions): GenerateResult {
  const root = options.root.split('\\').join('/');
  const project =
    options.project ?? new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const fs = project.getFileSystem();
  const rows = loadRows(project, root, options.declarationsPath);
  const warnings: string[] = [];
  const outputSchemas =
    options.outputSchemas ??
    (options.project ? undefined : readOutputSchemas(root, undefined, (message) => warnings.push(message)));
  // The names the catalog held before this run, read before it is rewritten.
  const before = committedNames(fs, root);
  const rendered = renderFiles(rows, options.emitters, outputSchemas);

  const files: FileReport[] = [];
  for (const { path, content } of rendered) {
    const absolute = posix.join(root, path);
    const current = fs.fileExistsSync(absolute) ? fs.readFileSync(absolute, 'utf8') : undefined;
    if (current === content) {
      files.push({ path, status: 'unchanged' });
    } else if (options.check) {
      files.push({ path, status: 'stale' });
    } else {
      fs.mkdirSync(posix.dirname(absolute));
      fs.writeFileSync(absolute, content);
      files.push({ path, status: 'written' });
    }
  }

  // The figures the docs give of the rows, between their markers.
  const figures = docFigures(
    rows.map(({ row }) => row),
    options.emitters ?? EMITTERS,
  );
  for (const path of options.docs ?? DOCS_WITH_FIGURES) {
    const absolute = posix.join(root, path);
    if (!fs.fileExistsSync(absolute)) continue;
    const current = fs.readFileSync(absolute, 'utf8');
    const content = withFigures(path, current, figures);
    if (content === current) files.push({ path, status: 'unchanged' });
    else if (options.check) files.push({ path, status: 'stale' });
    else {
      fs.writeFileSync(absolute, content);
      files.push({ path, status: 'written' });
    }
  }

  // An emitter without its input here (no registry to read output types from) leaves its file be.
  const known = new Set((options.emitters ?? EMITTERS).map(({ path }) => path));
  for (const directory of new Set(rendered.map(({ path }) => posix.dirname(path)))) {
    for (const path of listFiles(fs, root, directory)) {
      if (known.has(path)) continue;
      if (options.check) {
        files.push({ path, status: 'orphan' });
      } else {
        fs.deleteSync(posix.join(root, path));
        files.push({ path, status: 'deleted' });
      }
    }
  }

  const implementations = findMissingImplementations(project, root, rows);
  const names = new Set(rows.map(({ row }) => row.name));
  const renamed = new Map(
    rows.flatMap(({ row }) => (row.formerly ?? []).map((former) => [former, row.name] as const)),
  );
  const leftovers = before
    .filter((name) => !names.has(name))
    .map((name) => ({
      name,
      ...(renamed.has(name) ? { renamedTo: renamed.get(name)! } : {}),
      files: filesNaming(fs, root, name),
    }));
  return {
    rows,
    warnings,
    leftovers,
    files,
    stale: files.filter((file) => file.status === 'stale' || file.status === 'orphan'),
    ...(implementations ? { implementations } : {}),
  };
}

function listFiles(fs: FileSystemHost, root: string, directory: string): string[] {
  const absolute = posix.join(root, directory);
  if (!fs.directoryExistsSync(absolute)) return [];
  return fs
    .readDirSync(absolute)
    .filter((entry) => entry.isFile)
    .map((entry) => posix.join(directory, posix.basename(entry.name)))
    .sort();
}

/** The tool names the committed catalog lists (none before the first gen). */
function committedNames(fs: FileSystemHost, root: string): string[] {
  const path = posix.join(root, 'packages/catalog/src/generated/tool-names.ts');
  if (!fs.fileExistsSync(path)) return [];
  const list = /export const TOOL_NAMES = \[([^\]]*)\]/.exec(fs.readFileSync(path, 'utf8'))?.[1] ?? '';
  return [...list.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

/** Folders of the repository a tool's name may be written in by hand (generated folders aside). */
const SOURCE_ROOTS = ['packages', 'apps', 'tools', 'docs'];
const SKIPPED = new Set(['node_modules', 'dist', 'generated', '.turbo']);

/** The files, outside generated folders and the rows, whose text names `name` as a word. */
function filesNaming(fs: FileSystemHost, root: string, name: string): string[] {
  const word = new RegExp(`\\b${name}\\b`);
  const found: string[] = [];
  const visit = (directory: string) => {
    const absolute = posix.join(root, directory);
    if (!fs.directoryExistsSync(absolute)) return;
    for (const entry of fs.readDirSync(absolute)) {
      const base = posix.basename(entry.name);
      const path = posix.join(directory, base);
      if (entry.isDirectory) {
        if (!SKIPPED.has(base)) visit(path);
      } else if (
        /\.(ts|tsx|md|json)$/.test(base) &&
        path !== DECLARATIONS_PATH &&
        word.test(fs.readFileSync(posix.join(root, path), 'utf8'))
      )
        found.push(path);
    }
  };
  for (const directory of SOURCE_ROOTS) visit(directory);
  for (const file of ['README.md', 'CONTRIBUTING.md'])
    if (
      fs.fileExistsSync(posix.join(root, file)) &&
      word.test(fs.readFileSync(posix.join(root, file), 'utf8'))
    )
      found.push(file);
  return found.sort();
}
