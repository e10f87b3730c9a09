// What a new row still needs by hand: its implementation. The registry's syntax tree
// (packages/tools/src/registry.ts and the files it imports from) is read the way the rows are,
// so `npm run gen` can name the file and the entry to add, before the type checker's knock-on
// errors do it less clearly.
import { posix } from 'node:path';
import { Node, type ObjectLiteralExpression, type Project, type SourceFile, SyntaxKind } from 'ts-morph';
import type { LocatedRow } from './row-model.ts';

/** The registry, relative to the repository root. */
export const REGISTRY_PATH = 'packages/tools/src/registry.ts';
/** The object in the registry that maps each immediate row to its implementation. */
export const IMMEDIATE_OBJECT = 'IMMEDIATE';

/** A row without an implementation, and where to write it. */
export interface MissingImplementation {
  name: string;
  /** The file (relative to the root) to export the implementation from. */
  file: string;
  /** The implemented row the new one sits after (or before) in the declaration file. */
  neighbour?: string;
  /** defineTool, or defineProposable for a tool that a propose row names as its twin. */
  define: 'defineTool' | 'defineProposable';
  /** Whether the row lists requests of its own (`asks`), which eval and the visibility audit run. */
  asks: boolean;
}

export interface ImplementationReport {
  missing: MissingImplementation[];
  /** Entries of IMMEDIATE that are no (immediate) row. */
  extra: string[];
}

function immediateObject(registry: SourceFile): ObjectLiteralExpression | undefined {
  const declaration = registry.getVariableDeclaration(IMMEDIATE_OBJECT);
  let initializer: Node | undefined = declaration?.getInitializer();
  // `{ … } satisfies …` and `{ … } as const`: the object is inside.
  while (initializer && (Node.isSatisfiesExpression(initializer) || Node.isAsExpression(initializer)))
    initializer = initializer.getExpression();
  return initializer && Node.isObjectLiteralExpression(initializer) ? initializer : undefined;
}

/**
 * Which immediate rows the registry does not implement, and what to write for each. Propose rows
 * need nothing: the registry derives them from their twin. Returns undefined when the repository
 * has no registry (the generator runs on the rows alone, too).
 */
export function findMissingImplementations(
  project: Project,
  root: string,
  rows: readonly LocatedRow[],
  registryPath = REGISTRY_PATH,
): ImplementationReport | undefined {
  const absolute = posix.join(root, registryPath);
  const fs = project.getFileSystem();
  if (!fs.fileExistsSync(absolute)) return undefined;
  const registry = project.getSourceFile(absolute) ?? project.addSourceFileAtPath(absolute);
  const object = immediateObject(registry);
  if (!object) return undefined;

  // Each key of IMMEDIATE, and the file its value is imported from.
  const fileOf = new Map<string, string>();
  const imported = new Map<string, string>();
  for (const declaration of registry.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue();
    if (!specifier.startsWith('.')) continue;
    const file = posix.normalize(posix.join(posix.dirname(registryPath), specifier));
    for (const named of declaration.getNamedImports())
      imported.set(named.getAliasNode()?.getText() ?? named.getName(), file);
  }
  const keys: string[] = [];
  for (const property of object.getProperties()) {
    if (Node.isShorthandPropertyAssignment(property)) {
      keys.push(property.getName());
      const file = imported.get(property.getName());
      if (file) fileOf.set(property.getName(), file);
    } else if (Node.isPropertyAssignment(property)) {
      keys.push(property.getName());
      const value = property.getInitializerIfKind(SyntaxKind.Identifier)?.getText();
      const file = value ? imported.get(value) : undefined;
      if (file) fileOf.set(property.getName(), file);
    }
  }

  const immediate = rows.filter(({ row }) => row.tier !== 'loop' && row.access !== 'propose');
  const implemented = new Set(keys);
  const twins = new Set(rows.flatMap(({ row }) => (row.twin ? [row.twin] : [])));
  const missing: MissingImplementation[] = [];
  for (const [index, { row }] of immediate.entries()) {
    if (implemented.has(row.name)) continue;
    // The nearest implemented row above it (else below) in the declaration file: similar rows
    // sit together there and in the tools' files.
    const above = immediate.slice(0, index).reverse();
    const below = immediate.slice(index + 1);
    const neighbour = [...above, ...below].find((candidate) => fileOf.has(candidate.row.name))?.row.name;
    missing.push({
      name: row.name,
      file: (neighbour && fileOf.get(neighbour)) ?? 'packages/tools/src/tools/schema-tools.ts',
      ...(neighbour ? { neighbour } : {}),
      define: twins.has(row.name) ? 'defineProposable' : 'defineTool',
      asks: (row.asks?.length ?? 0) > 0,
    });
  }
  const names = new Set(immediate.map(({ row }) => row.name));
  return { missing, extra: keys.filter((key) => !names.has(key)) };
}

/** The next step, as `npm run gen` prints it; empty when every row is implemented. */
export function describeMissingImplementations(report: ImplementationReport): string {
  const lines: string[] = [];
  if (report.missing.length > 0) {
    const count = report.missing.length;
    lines.push(
      `Next: ${count} row${count === 1 ? ' has' : 's have'} no implementation yet (typecheck, createAgent and the MCP server fail until ${count === 1 ? 'it has' : 'they have'} one):`,
    );
    for (const missing of report.missing) {
      const importFrom = `./${posix.relative(posix.dirname(REGISTRY_PATH), missing.file)}`;
      const extra = missing.define === 'defineProposable' ? ', prepare, label' : '';
      lines.push(
        `  ${missing.name}:`,
        `    1. in ${missing.file}${missing.neighbour ? ` (beside ${missing.neighbour})` : ''}, add`,
        `         export const ${missing.name} = ${missing.define}({ inputSchema: z.object({ … }).strict(), async execute(input, ctx) { … }${extra} });`,
        `    2. in ${REGISTRY_PATH}, import ${missing.name} from '${importFrom}' and add ${missing.name} to ${IMMEDIATE_OBJECT}.`,
      );
      if (!missing.asks)
        lines.push(
          `    3. in its row, list asks (requests a user types that it answers: eval's corpus and the visibility audit run them), and an example input on the sample shop if it takes a required one.`,
        );
    }
  }
  for (const extra of report.extra) {
    lines.push(
      `${REGISTRY_PATH}: ${IMMEDIATE_OBJECT} has an entry ${extra}, which is no immediate row: remove it or add its row.`,
    );
  }
  return lines.join('\n');
}
