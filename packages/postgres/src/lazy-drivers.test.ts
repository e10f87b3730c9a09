// A consumer pays only for the drivers it opens: importing the package loads neither pg nor
// PGlite, and opening the embedded database loads PGlite but never pg. Checked in a fresh process,
// whose module hooks record every package that resolves.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const INDEX = new URL('./index.ts', import.meta.url).href;

async function packagesLoaded(body: string): Promise<string[]> {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        if (/^(pg|pg-copy-streams|@electric-sql\\/pglite)(\\/|$)/.test(specifier)) seen.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
        return next(specifier, context);
      },
    });
    const datasource = await import(${JSON.stringify(INDEX)});
    ${body}
    console.log(JSON.stringify([...seen].sort()));`;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
      (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
    );
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('drivers load when a connection of their kind opens', () => {
  it('importing the package loads no driver', async () => {
    expect(await packagesLoaded('')).toEqual([]);
  });

  it('opening the embedded database loads PGlite and never pg', async () => {
    expect(
      await packagesLoaded(`
        const source = await datasource.openDataSource({ memory: true, env: {} });
        await source.close();`),
    ).toEqual(['@electric-sql/pglite']);
  });
});
