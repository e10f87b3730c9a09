// By path, not by package name: the generator runs as plain `node cli.ts` in a clone that has built
// nothing, and search-text.ts imports nothing, so the terms are the tokenizer's own.
import { rowSearchTerms } from '../../../../packages/catalog/src/search-text.ts';
import type { Emitter } from './emitter.ts';
import { docComment, file, propertyKey, quote } from './format.ts';

const list = (values: readonly string[]) => `[${values.map(quote).join(', ')}]`;
const lists = (values: readonly (readonly string[])[], indent: string) =>
  values.length === 0
    ? '[]'
    : `[\n${values.map((each) => `${indent}  ${list(each)},`).join('\n')}\n${indent}]`;

/**
 * The search index's input, tokenized here once from the rows (names, keywords, the words in every
 * language, verbs, descriptions, each engine's words), so searchTools never tokenizes the catalog.
 */
export const searchTermsEmitter: Emitter = {
  id: 'search-terms',
  path: 'packages/catalog/src/generated/search-terms.ts',
  what: "each row's search terms, tokenized and stemmed once at generation (name, keywords, description, words, verbs), per engine's words",
  emit: ({ rows, header }) =>
    file(
      header,
      "import type { RowSearchTerms } from '../search-text.ts';\nimport type { ToolName } from './tool-names.ts';",
      `${docComment(`Every row's search terms, tokenized by search-text.ts at generation time (${rows.length} rows).`)}\nexport const SEARCH_TERMS: Readonly<Record<ToolName, RowSearchTerms>> = {\n${rows
        .map((row) => {
          const terms = rowSearchTerms(row);
          const engines = Object.entries(terms.engineKeywords)
            .map(([engine, each]) => `      ${propertyKey(engine)}: ${lists(each, '      ')},`)
            .join('\n');
          return [
            `  ${propertyKey(row.name)}: {`,
            `    name: ${list(terms.name)},`,
            `    keywords: ${lists(terms.keywords, '    ')},`,
            `    description: ${list(terms.description)},`,
            `    verbs: ${lists(terms.verbs, '    ')},`,
            `    engineKeywords: {${engines ? `\n${engines}\n    ` : ''}},`,
            '  },',
          ].join('\n');
        })
        .join('\n')}\n};`,
    ),
};
