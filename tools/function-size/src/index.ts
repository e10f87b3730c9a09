// The bar: no function in the apps or packages is over MAX_FUNCTION_LINES lines. A long function
// is many jobs in one; the bar says which, by file:line, so each can be split by what it does.
import { type Node, Project, SyntaxKind } from 'ts-morph';

export const MAX_FUNCTION_LINES = 200;

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const FUNCTION_KINDS = [
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
] as const;

/** Sources the bar covers: code a person wrote (tests, generated files and builds aside). */
export function isCovered(path: string): boolean {
  return (
    /\/(apps|packages)\/[^/]+\/src\//.test(path) &&
    /\.tsx?$/.test(path) &&
    !/\.test\.tsx?$/.test(path) &&
    !/\/generated\//.test(path) &&
    !/\.d\.ts$/.test(path)
  );
}

/** A function's name as a person finds it: its own, or the variable or property it is assigned to. */
function nameOf(node: Node): string {
  const named = (node as unknown as { getName?: () => string | undefined }).getName?.();
  if (named) return named;
  const parent = node.getParent();
  const holder = (parent as unknown as { getName?: () => string | undefined } | undefined)?.getName?.();
  return holder ?? '(anonymous)';
}

/** The functions of `files` longer than `max` lines, longest first. */
export function longFunctions(
  root: string,
  files: readonly string[],
  max = MAX_FUNCTION_LINES,
): LongFunction[] {
  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const found: LongFunction[] = [];
  for (const file of files) {
    const source = project.addSourceFileAtPath(file);
    for (const kind of FUNCTION_KINDS)
      for (const node of source.getDescendantsOfKind(kind)) {
        const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
        if (lines > max)
          found.push({
            file: file.slice(root.length + 1),
            line: node.getStartLineNumber(),
            name: nameOf(node),
            lines,
          });
      }
  }
  return found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}
