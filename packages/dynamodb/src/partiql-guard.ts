// The statement check of PartiQL reads (the first of the read layers): one SELECT, nothing that
// writes, comments taken out. What it passes on is the statement rebuilt from its tokens, so the
// read client's own check (clients.ts) and DynamoDB see exactly what was checked.
import { DataSourceError } from '@toolrow/datasource';
import { numberRangeProblem } from './values.ts';

export interface PartiqlRead {
  /** The statement as sent: its tokens, comments removed, strings and quoted names verbatim. */
  statement: string;
  /** The table it reads (FROM), as DynamoDB names it. */
  table: string;
  /** The index it names (FROM "table"."index"), if any. */
  index?: string;
}

export class PartiqlGuardError extends DataSourceError {
  constructor(message: string) {
    super('permission', message);
  }
}

/** Words that make or name a write, a transaction or DDL: refused anywhere outside quotes. */
const WRITE_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'UPSERT',
  'REMOVE',
  'SET',
  'CREATE',
  'DROP',
  'ALTER',
  'EXEC',
  'EXECUTE',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'TRANSACTION',
  'RETURNING',
  'INTO',
  'VALUE',
]);

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'string' | 'ident'; text: string; value: string }
  | { kind: 'punct'; text: string }
  | { kind: 'number'; text: string };

const STATEMENT_HINT =
  'Write one SELECT, e.g. SELECT * FROM "orders" WHERE "customer_id" = \'c-17\'; changes are staged and committed after review (edits in a table, or the stage tools).';

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (/\s/.test(char)) {
      index++;
    } else if (char === '-' && text[index + 1] === '-') {
      const end = text.indexOf('\n', index);
      index = end === -1 ? text.length : end + 1;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      if (end === -1)
        throw new PartiqlGuardError(
          `The statement has a comment that never ends (/* without */). ${STATEMENT_HINT}`,
        );
      // A comment opened inside a comment may nest on the server's side: refuse what cannot be read one way.
      if (text.slice(index + 2, end).includes('/*'))
        throw new PartiqlGuardError(`The statement nests comments. Take them out. ${STATEMENT_HINT}`);
      index = end + 2;
    } else if (char === "'" || char === '"') {
      let end = index + 1;
      let value = '';
      for (;;) {
        if (end >= text.length)
          throw new PartiqlGuardError(
            `The statement has a ${char === "'" ? 'string' : 'quoted name'} that never ends. ${STATEMENT_HINT}`,
          );
        if (text[end] === char) {
          if (text[end + 1] === char) {
            value += char;
            end += 2;
            continue;
          }
          break;
        }
        value += text[end];
        end++;
      }
      tokens.push({ kind: char === "'" ? 'string' : 'ident', text: text.slice(index, end + 1), value });
      index = end + 1;
    } else if (char === '`') {
      throw new PartiqlGuardError(
        `Ion literals in backticks are not read here. Use 'strings' and numbers. ${STATEMENT_HINT}`,
      );
    } else if (/[A-Za-z_]/.test(char)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(index))![0];
      tokens.push({ kind: 'word', text: match });
      index += match.length;
    } else if (/[0-9]/.test(char)) {
      const match = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(index))![0];
      checkNumberRange(match);
      tokens.push({ kind: 'number', text: match });
      index += match.length;
    } else if ('=<>!'.includes(char) && '=>'.includes(text[index + 1] ?? '')) {
      tokens.push({ kind: 'punct', text: text.slice(index, index + 2) });
      index += 2;
    } else if ('(),.*=<>?[]{}:+-/%|'.includes(char)) {
      tokens.push({ kind: 'punct', text: char });
      index++;
    } else if (char === ';') {
      tokens.push({ kind: 'punct', text: ';' });
      index++;
    } else {
      throw new PartiqlGuardError(
        `The statement has a character PartiQL reads do not use: '${char}'. ${STATEMENT_HINT}`,
      );
    }
  }
  return tokens;
}

/** A literal DynamoDB cannot hold is refused here, naming the range (1e999999 kept DynamoDB Local busy for minutes). */
function checkNumberRange(text: string): void {
  const problem = numberRangeProblem(text);
  if (problem) throw new PartiqlGuardError(`${problem} ${STATEMENT_HINT}`);
}

/** Checks one PartiQL read; throws PartiqlGuardError saying what to write instead. */
export function checkReadOnlyPartiql(text: string): PartiqlRead {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new PartiqlGuardError(`The statement is empty. ${STATEMENT_HINT}`);
  }
  const tokens = tokenize(text);
  const semicolon = tokens.findIndex((token) => token.kind === 'punct' && token.text === ';');
  if (semicolon !== -1 && semicolon !== tokens.length - 1) {
    throw new PartiqlGuardError(
      `Only one statement is read at a time (there is more after a ';'). ${STATEMENT_HINT}`,
    );
  }
  const body = semicolon === -1 ? tokens : tokens.slice(0, -1);
  const first = body[0];
  if (first?.kind !== 'word' || first.text.toUpperCase() !== 'SELECT') {
    throw new PartiqlGuardError(
      `Only SELECT reads run here; ${first ? `'${first.text}'` : 'nothing'} does not start one. ${STATEMENT_HINT}`,
    );
  }
  for (const token of body) {
    if (token.kind === 'word' && WRITE_WORDS.has(token.text.toUpperCase())) {
      throw new PartiqlGuardError(
        `'${token.text}' writes or names a write, and only reads run here (an attribute of that name is read as "${token.text}", in double quotes). ${STATEMENT_HINT}`,
      );
    }
  }
  const from = body.findIndex((token) => token.kind === 'word' && token.text.toUpperCase() === 'FROM');
  const tableToken = from === -1 ? undefined : body[from + 1];
  if (!tableToken || (tableToken.kind !== 'word' && tableToken.kind !== 'ident')) {
    throw new PartiqlGuardError(`The SELECT names no table (FROM "table"). ${STATEMENT_HINT}`);
  }
  const table = tableToken.kind === 'ident' ? tableToken.value : tableToken.text;
  let index: string | undefined;
  const dot = body[from + 2];
  const indexToken = body[from + 3];
  if (
    dot?.kind === 'punct' &&
    dot.text === '.' &&
    indexToken &&
    (indexToken.kind === 'ident' || indexToken.kind === 'word')
  ) {
    index = indexToken.kind === 'ident' ? indexToken.value : indexToken.text;
  }
  if (body.filter((token) => token.kind === 'word' && token.text.toUpperCase() === 'FROM').length > 1) {
    throw new PartiqlGuardError(`A read names one table; this one has more than one FROM. ${STATEMENT_HINT}`);
  }
  return { statement: rebuild(body), table, ...(index !== undefined ? { index } : {}) };
}

function rebuild(tokens: readonly Token[]): string {
  let out = '';
  let previous: Token | undefined;
  for (const token of tokens) {
    const tight =
      previous === undefined ||
      (token.kind === 'punct' && ['.', ',', ')', ']', '}'].includes(token.text)) ||
      (previous.kind === 'punct' && ['.', '(', '[', '{'].includes(previous.text));
    out += `${tight ? '' : ' '}${token.text}`;
    previous = token;
  }
  return out;
}
