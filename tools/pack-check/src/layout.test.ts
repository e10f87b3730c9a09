// CONTRIBUTING's layout is the repository's: every package folder is listed, and every listed
// folder exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

it('CONTRIBUTING lists every package, tool and app, and nothing that is not there', () => {
  const layout =
    /## Layout[^\n]*\n```\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'))?.[1] ??
    '';
  const listed = [...layout.matchAll(/^((?:packages|tools|apps)\/[\w-]+)\s/gm)]
    .map((match) => match[1]!)
    .sort();
  const present = ['packages', 'tools', 'apps']
    .flatMap((group) =>
      readdirSync(join(ROOT, group), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, group, entry.name, 'package.json')))
        .map((entry) => `${group}/${entry.name}`),
    )
    .sort();
  expect(listed).toEqual(present);
});
