// The README's route table cannot drift: every route the server defines is a row of it, and every
// row is a route the server defines.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const SRC = import.meta.dirname;

function definedRoutes(): string[] {
  const routes = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    // Catch-alls are the static files and middleware, not API routes.
    for (const match of readFileSync(join(SRC, file), 'utf8').matchAll(
      /\bapp\.(get|post|put|delete|patch)\(\s*'([^']+)'/g,
    ))
      if (match[2]!.startsWith('/api/')) routes.add(`${match[1]!.toUpperCase()} ${match[2]}`);
  }
  return [...routes].sort();
}

function documentedRoutes(): string[] {
  const readme = readFileSync(join(SRC, '../README.md'), 'utf8');
  return [...readme.matchAll(/^\| `((?:GET|POST|PUT|DELETE|PATCH) \/api\/[^`]+)` \|/gm)]
    .map((match) => match[1]!)
    .sort();
}

it('every route of the server is in the README, and the README lists no other', () => {
  const defined = definedRoutes();
  expect(defined.length).toBeGreaterThan(30);
  expect(documentedRoutes()).toEqual(defined);
});
