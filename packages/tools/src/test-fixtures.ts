// Test-only helpers shared by this package's tests (not exported from index.ts).
import type { DataSource } from '@toolrow/datasource';

export { dataFingerprint, stateFingerprint } from '@toolrow/postgres/testing';

import type { ToolrowState } from '@toolrow/state';
import fc from 'fast-check';
import type { ToolContext } from './context.ts';

export function contextFor(
  stores: { source: DataSource; state: ToolrowState },
  overrides: Partial<ToolContext> = {},
): ToolContext {
  return { source: stores.source, state: stores.state, profile: 'default', actor: 'agent', ...overrides };
}

const separator = fc.constantFrom(' ', '  ', '\n', '\t', ' /* note */ ', ' -- note\n');

function keyword(word: string) {
  return fc.constantFrom(
    word.toLowerCase(),
    word.toUpperCase(),
    word[0]!.toUpperCase() + word.slice(1).toLowerCase(),
  );
}

/** Joins tokens with generated whitespace and comments, keywords in generated case. */
function statement(...parts: (string | fc.Arbitrary<string>)[]): fc.Arbitrary<string> {
  const arbitraries = parts.map((part) => (typeof part === 'string' ? fc.constant(part) : part));
  return fc
    .tuple(
      fc.tuple(...arbitraries),
      fc.array(separator, { minLength: parts.length, maxLength: parts.length }),
    )
    .map(([tokens, separators]) =>
      tokens.map((token, index) => (index === 0 ? token : `${separators[index]}${token}`)).join(''),
    );
}

/**
 * SQL that writes, locks, changes the session or runs more than one statement, over the sample
 * shop's `orders` table, in generated case, spacing and comments.
 */
export function writeForms(): fc.Arbitrary<string> {
  const table = fc.constantFrom('orders', 'public.orders', '"orders"', 'ORDERS', 'public."orders"');
  const value = fc.oneof(
    fc.integer({ min: -5, max: 1_000_000 }).map(String),
    fc.constantFrom("'x'", "'it''s'", '$$v$$', 'NULL'),
  );
  const k = keyword;
  return fc.oneof(
    statement(k('insert'), k('into'), table, '(status)', k('values'), fc.constant("('pending')")),
    statement(k('update'), table, k('set'), 'status', '=', value),
    statement(k('delete'), k('from'), table, k('where'), 'id', '>', value),
    statement(k('delete'), k('from'), table),
    statement(
      k('with'),
      'd',
      k('as'),
      '(',
      k('delete'),
      k('from'),
      table,
      k('returning'),
      '*',
      ')',
      k('select'),
      'count(*)',
      k('from'),
      'd',
    ),
    statement(
      k('with'),
      'u',
      k('as'),
      '(',
      k('update'),
      table,
      k('set'),
      'status',
      '=',
      value,
      k('returning'),
      'id',
      ')',
      k('select'),
      '1',
    ),
    statement(k('select'), '*', k('into'), 'orders_copy', k('from'), table),
    statement(k('create'), k('table'), 'orders_copy', k('as'), k('select'), '*', k('from'), table),
    statement(
      k('select'),
      '*',
      k('from'),
      table,
      k('for'),
      fc.constantFrom('update', 'share', 'no key update', 'key share'),
    ),
    statement(k('drop'), k('table'), table),
    statement(k('truncate'), table),
    statement(k('alter'), k('table'), table, k('add'), k('column'), 'z', 'int'),
    statement(
      k('merge'),
      k('into'),
      table,
      'm',
      k('using'),
      '(select 1 as k)',
      's',
      k('on'),
      'false',
      k('when'),
      k('not'),
      k('matched'),
      k('then'),
      k('do'),
      k('nothing'),
    ),
    statement(k('select'), "setval(pg_get_serial_sequence('orders', 'id'), 1)"),
    statement(k('select'), "nextval(pg_get_serial_sequence('orders', 'id'))"),
    statement(k('select'), "set_config('transaction_read_only', 'off', false)"),
    statement(k('select'), '1', ';', k('delete'), k('from'), table),
    statement(k('select'), "';'", ';', k('update'), table, k('set'), 'status', '=', value),
    statement(k('set'), 'transaction_read_only', '=', 'off'),
    statement(k('set'), k('session'), k('characteristics'), k('as'), k('transaction'), k('read'), k('write')),
    statement(k('reset'), k('all')),
    statement(k('lock'), k('table'), table),
    statement(k('copy'), table, k('to'), k('stdout')),
    statement(k('do'), '$$ begin delete from orders; end $$'),
    statement(k('call'), 'anything()'),
    statement(k('begin'), ';', k('delete'), k('from'), table),
    statement(k('commit')),
  );
}
