/** One import form found in the text, with the 1-based line where it starts. */
export interface ImportFinding {
  line: number;
  kind: ImportKind;
  /** The source line, trimmed, for the error message. */
  excerpt: string;
}

export type ImportKind =
  | 'import-from'
  | 'import-type'
  | 'side-effect-import'
  | 'import-equals'
  | 'dynamic-import'
  | 'export-from'
  | 'require'
  | 'builtin-module'
  | 'reference-directive';

export const KIND_LABELS: Readonly<Record<ImportKind, string>> = {
  'import-from': 'an import declaration',
  'import-type': 'a type-only import',
  'side-effect-import': 'a side-effect import',
  'import-equals': 'an import-equals declaration',
  'dynamic-import': 'a dynamic import()',
  'export-from': 'a re-export (export … from)',
  require: 'a require() call',
  'builtin-module': 'a process.getBuiltinModule() call',
  'reference-directive': 'a triple-slash reference directive',
};

/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
]);

/** Whether the `/` at `at` (not a comment) opens a regex literal: it stands where a value may. */
function opensRegex(text: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && /\s/.test(text[j]!)) j--;
  if (j < 0) return true;
  const before = text[j]!;
  if ('(,=:[!&|?{};+-*%<>~^'.includes(before)) return true;
  if (!/[\w$]/.test(before)) return false;
  let start = j;
  while (start > 0 && /[\w$]/.test(text[start - 1]!)) start--;
  return BEFORE_REGEX_WORDS.has(text.slice(start, j + 1));
}

/** The index of the `/` that closes the regex literal opened at `at` (classes and escapes skipped). */
function regexEnd(text: string, at: number): number {
  let j = at + 1;
  let inClass = false;
  while (j < text.length && text[j] !== '\n') {
    const c = text[j]!;
    if (c === '\\') j += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) return j;
      j++;
    }
  }
  return j;
}

/**
 * Replaces the contents of comments, string literals and regex literals with spaces, keeping
 * quotes, line breaks and `${…}` code, so that prose, strings and patterns that mention imports
 * never match (and a quote inside a regex opens no string) but every character keeps its line.
 */
export function blankCommentsAndStrings(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  // Stack of open template literals; each entry counts the braces open inside its current `${`.
  const templates: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    const inTemplateCode = templates.length > 0;
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && opensRegex(text, i)) {
      const end = regexEnd(text, i);
      blank(i + 1, Math.min(end, text.length));
      i = end + 1;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, Math.min(j, text.length));
      i = j + 1;
    } else if (c === '`') {
      i = skipTemplateText(text, i + 1, blank, templates);
    } else if (inTemplateCode && c === '{') {
      templates[templates.length - 1]!++;
      i++;
    } else if (inTemplateCode && c === '}') {
      if (templates[templates.length - 1] === 0) {
        templates.pop();
        i = skipTemplateText(text, i + 1, blank, templates);
      } else {
        templates[templates.length - 1]!--;
        i++;
      }
    } else {
      i++;
    }
  }
  return out.join('');
}

/** Blanks template text from `start` up to the closing backtick or the next `${`; returns where code resumes. */
function skipTemplateText(
  text: string,
  start: number,
  blank: (from: number, to: number) => void,
  templates: number[],
): number {
  let j = start;
  while (j < text.length) {
    if (text[j] === '\\') {
      j += 2;
    } else if (text[j] === '`') {
      blank(start, j);
      return j + 1;
    } else if (text[j] === '$' && text[j + 1] === '{') {
      blank(start, j);
      templates.push(0);
      return j + 2;
    } else {
      j++;
    }
  }
  blank(start, text.length);
  return text.length;
}

const PATTERNS: readonly { kind: ImportKind; pattern: RegExp }[] = [
  // Order matters: the first pattern that matches at a position names the form.
  { kind: 'dynamic-import', pattern: /(?<![\w$.])import\s*\(/g },
  { kind: 'import-type', pattern: /(?<![\w$.])import\s+type\b/g },
  { kind: 'side-effect-import', pattern: /(?<![\w$.])import\s*['"]/g },
  { kind: 'import-equals', pattern: /(?<![\w$.])import\s+[\w$]+\s*=/g },
  // Any other `import` keyword left in code (strings and comments are blank) starts a static import.
  { kind: 'import-from', pattern: /(?<![\w$.])import(?![\w$])(?!\s*[.:?])/g },
  {
    kind: 'export-from',
    pattern: /(?<![\w$.])export\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*['"]/g,
  },
  { kind: 'require', pattern: /(?<![\w$])require\s*\(/g },
  // Node's way to a built-in module with no import at all (process.getBuiltinModule('node:fs')).
  { kind: 'builtin-module', pattern: /(?<![\w$])getBuiltinModule\s*\(/g },
];

/** Finds every import form in a TypeScript or JavaScript source text. */
export function scanImports(text: string): ImportFinding[] {
  const lines = text.split('\n');
  const code = blankCommentsAndStrings(text);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };

  const findings: ImportFinding[] = [];
  const claimed = new Set<number>();
  for (const { kind, pattern } of PATTERNS) {
    for (const match of code.matchAll(pattern)) {
      if (claimed.has(match.index)) continue;
      claimed.add(match.index);
      const line = lineOf(match.index);
      findings.push({ line, kind, excerpt: lines[line - 1]!.trim() });
    }
  }
  lines.forEach((line, index) => {
    if (/^\s*\/\/\/\s*<reference\b/.test(line))
      findings.push({ line: index + 1, kind: 'reference-directive', excerpt: line.trim() });
  });
  return findings.sort((a, b) => a.line - b.line);
}
