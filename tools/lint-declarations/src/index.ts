export {
  DECLARATIONS_SOURCE_DIR,
  declarationFiles,
  type FileFinding,
  formatFinding,
  lintFiles,
  WHY_NO_IMPORTS,
} from './lint.ts';
export {
  blankCommentsAndStrings,
  type ImportFinding,
  type ImportKind,
  KIND_LABELS,
  scanImports,
} from './scan.ts';
