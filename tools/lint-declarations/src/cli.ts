// `npm run lint` (first half): fails when any file of the declarations package has an import form.
import { fileURLToPath } from 'node:url';
import { declarationFiles, formatFinding, lintFiles, WHY_NO_IMPORTS } from './lint.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const files = process.argv.length > 2 ? process.argv.slice(2) : declarationFiles(root);
const findings = lintFiles(root, files);
if (findings.length > 0) {
  for (const finding of findings) console.error(formatFinding(finding));
  console.error(`\n${WHY_NO_IMPORTS}`);
  process.exitCode = 1;
} else {
  console.log(`No imports in ${files.join(', ')}.`);
}
