// Tool search's input, apart from the catalog's main entry so the app's bundle does not carry it:
// the tokenizer, and every row's terms as the generator tokenized them.
export { SEARCH_TERMS } from './generated/search-terms.ts';
export * from './search-text.ts';
