// `npm run pack:check`: what a consumer of the public packages meets, from a copy of the
// repository as a fresh clone has it (tracked and new files, no dist/, no build caches):
//   1. `changeset version` in the copy (plus one minor changeset, so a bump always happens);
//   2. `npm pack` each public package there (its prepack builds it) and check the tarball's rules;
//   3. a scratch consumer installs only the tarballs (third-party deps from the npm registry);
//   4. plain Node imports every `exports` entry; a consumer file typechecks under `nodenext` and
//      under `bundler`; esbuild bundles the browser-safe packages for the browser;
//   5. publint and attw (--profile esm-only) on each tarball;
//   6. the packed MCP server, over stdio, reports the bumped version; the agent without any model
//      provider installed names the package to install.
// Exits 1 listing every problem. Scratch files go in a temporary folder, removed unless
// TOOLROW_PACK_CHECK_KEEP is set.
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { checkPackedPackage, exportEntries } from './rules.ts';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
// Outside the repository, so the consumer cannot resolve anything from the repo's node_modules.
const SCRATCH = mkdtempSync(join(tmpdir(), 'toolrow-pack-check-'));
const BIN = join(ROOT, 'node_modules', '.bin');
/** Packages whose consumers include browsers: they may import no Node built-in. */
const BROWSER_SAFE = ['@toolrow/declarations', '@toolrow/catalog'];

const started = Date.now();
const problems: string[] = [];
const step = (what: string) => console.log(`==> ${what} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
const fail = (where: string, message: string) => problems.push(`${where}: ${message}`);

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    return await run(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${stderr ?? ''}${stdout ?? ''}`, {
      cause: error,
    });
  }
}

interface Workspace {
  name: string;
  directory: string;
}

function publicPackages(): Workspace[] {
  const out = execFileSync('npm', ['query', '.workspace', '--json'], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(out) as { name: string; private?: boolean; location: string }[])
    .filter((pkg) => !pkg.private)
    .map((pkg) => ({ name: pkg.name, directory: pkg.location }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The repository as a clone has it: tracked files and new unignored ones, never dist/ or caches. */
function copyAsClone(target: string, packages: Workspace[]) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  const wanted = (path: string) =>
    // The lockfile too: changesets finds the workspaces by it.
    ['package.json', 'package-lock.json', 'tsconfig.base.json', 'LICENSE'].includes(path) ||
    path.startsWith('.changeset/') ||
    packages.some((pkg) => path.startsWith(`${pkg.directory}/`)) ||
    // Changesets reads every workspace's manifest, private ones too.
    /^(apps|tools)\/[^/]+\/package\.json$/.test(path);
  for (const path of listed.filter(wanted)) {
    if (!existsSync(join(ROOT, path))) continue; // deleted in the working tree
    mkdirSync(dirname(join(target, path)), { recursive: true });
    cpSync(join(ROOT, path), join(target, path));
  }
  // Building needs the toolchain and the third-party deps; the copy borrows the repo's.
  symlinkSync(join(ROOT, 'node_modules'), join(target, 'node_modules'), 'dir');
}

async function main(): Promise<number> {
  const repo = join(SCRATCH, 'repo');
  const tarballs = join(SCRATCH, 'tarballs');
  const consumer = join(SCRATCH, 'consumer');
  mkdirSync(tarballs, { recursive: true });
  const packages = publicPackages();
  const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');

  step(`Copy ${packages.length} public packages as a clone has them; changeset version`);
  copyAsClone(repo, packages);
  const before = JSON.parse(readFileSync(join(ROOT, 'packages/mcp-server/package.json'), 'utf8')).version;
  writeFileSync(
    join(repo, '.changeset', 'pack-check-bump.md'),
    `---\n${packages.map((pkg) => `'${pkg.name}': minor`).join('\n')}\n---\n\npack-check: a release to pack.\n`,
  );
  await sh(join(BIN, 'changeset'), ['version'], repo);
  const versions = new Map(
    packages.map((pkg) => [
      pkg.name,
      JSON.parse(readFileSync(join(repo, pkg.directory, 'package.json'), 'utf8')).version as string,
    ]),
  );
  // changesets looks upward for the workspace root: make sure it versioned the copy, not the repo.
  if (JSON.parse(readFileSync(join(ROOT, 'packages/mcp-server/package.json'), 'utf8')).version !== before)
    throw new Error(
      `changeset version changed ${ROOT} instead of the copy in ${repo}: restore it with git checkout.`,
    );
  const mcpVersion = versions.get('@toolrow/mcp-server');
  if (mcpVersion === before) fail('changeset version', `left @toolrow/mcp-server at ${before}`);

  step('npm pack each public package (prepack builds it) and check what the tarball holds');
  const packed = new Map<string, string>();
  for (const pkg of packages) {
    const { stdout } = await sh(
      'npm',
      ['pack', '--json', '--pack-destination', tarballs],
      join(repo, pkg.directory),
    );
    const [info] = JSON.parse(stdout) as { filename: string }[];
    if (!info) throw new Error(`npm pack printed no tarball for ${pkg.name}`);
    const tarball = join(tarballs, info.filename);
    packed.set(pkg.name, tarball);
    const extracted = join(SCRATCH, 'extracted', pkg.name);
    mkdirSync(extracted, { recursive: true });
    await sh('tar', ['-xzf', tarball, '-C', extracted], SCRATCH);
    for (const problem of checkPackedPackage({
      dir: join(extracted, 'package'),
      directory: pkg.directory,
      license,
    }))
      fail(pkg.name, problem);
  }

  step('publint and attw (esm-only) on each tarball, while a scratch consumer installs only the tarballs');
  const lints = [...packed].map(async ([name, tarball]) => {
    await sh(
      join(BIN, 'publint'),
      ['run', tarball, '--strict', '--level', 'suggestion', '--pack', 'false'],
      SCRATCH,
    )
      .then(({ stdout }) => {
        if (/Suggestions:|Warnings:|Errors:/.test(stdout)) fail(name, `publint:\n${stdout.trim()}`);
      })
      .catch((error: Error) => fail(name, `publint: ${error.message}`));
    await sh(
      join(BIN, 'attw'),
      [tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color'],
      SCRATCH,
    ).catch((error: Error) => fail(name, `attw --profile esm-only: ${error.message}`));
  });

  mkdirSync(consumer, { recursive: true });
  const devManifest = JSON.parse(readFileSync(join(ROOT, 'packages/mcp-server/package.json'), 'utf8'));
  const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify(
      {
        name: 'toolrow-pack-consumer',
        private: true,
        type: 'module',
        dependencies: {
          ...Object.fromEntries([...packed].map(([name, tarball]) => [name, `file:${tarball}`])),
          '@modelcontextprotocol/client': devManifest.devDependencies['@modelcontextprotocol/client'],
          '@types/node': rootManifest.devDependencies['@types/node'],
        },
      },
      null,
      2,
    ),
  );
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts=false'],
    consumer,
  );
  for (const [name, version] of versions) {
    const installed = join(consumer, 'node_modules', name, 'package.json');
    const got = existsSync(installed) ? JSON.parse(readFileSync(installed, 'utf8')).version : 'nothing';
    if (got !== version) fail(name, `the consumer installed ${got}, not the packed ${version}`);
  }
  for (const provider of Object.keys(
    JSON.parse(readFileSync(join(repo, 'packages/agent/package.json'), 'utf8')).peerDependencies ?? {},
  )) {
    if (existsSync(join(consumer, 'node_modules', provider)))
      fail('@toolrow/agent', `installing it installed ${provider}: model providers are optional peers`);
  }

  // A JSON entry (e.g. '@toolrow/mcp-server/server-info.json') is imported as Node requires.
  const withAttributes = (entry: string) => (entry.endsWith('.json') ? " with { type: 'json' }" : '');
  step('Plain Node imports every exports entry');
  const entries = packages.flatMap((pkg) =>
    exportEntries(JSON.parse(readFileSync(join(repo, pkg.directory, 'package.json'), 'utf8'))),
  );
  writeFileSync(
    join(consumer, 'import-all.mjs'),
    `${entries.map((entry, index) => `import * as m${index} from '${entry}'${withAttributes(entry)};`).join('\n')}\n` +
      `const modules = { ${entries.map((entry, index) => `'${entry}': m${index}`).join(', ')} };\n` +
      'for (const [entry, module] of Object.entries(modules)) if (Object.keys(module).length === 0) throw new Error(`${entry} exports nothing`);\n' +
      "console.log('imported', Object.keys(modules).length);\n",
  );
  await sh(process.execPath, ['import-all.mjs'], consumer).catch((error: Error) =>
    fail('import', error.message),
  );

  step('The packed MCP server over stdio reports the packed version; the agent names a missing provider');
  writeFileSync(
    join(consumer, 'mcp-server.mjs'),
    `import { serveMcpStdio } from '@toolrow/mcp-server';
import * as z from 'zod';
const backend = {
  inputSchemaOf: () => z.object({}).passthrough(),
  outputSchemaOf: () => ({ type: 'object' }),
  parseInput: (_name, rawInput) => rawInput,
  run: async (name) => ({ ran: name }),
  audit: async () => {},
};
await serveMcpStdio({ backend, principal: { name: 'pack-check', scope: 'tables:readonly' } }).closed;
`,
  );
  writeFileSync(
    join(consumer, 'mcp-client.mjs'),
    `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const client = new Client({ name: 'pack-check', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: ['mcp-server.mjs'], env: { PATH: process.env.PATH } }));
const server = client.getServerVersion();
const tools = (await client.listTools()).tools.length;
await client.close();
console.log(JSON.stringify({ ...server, tools }));
`,
  );
  await sh(process.execPath, ['mcp-client.mjs'], consumer)
    .then(({ stdout }) => {
      const server = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        version?: string;
        tools?: number;
      };
      if (server.version !== mcpVersion)
        fail(
          '@toolrow/mcp-server',
          `reports version ${server.version} over MCP, but ${mcpVersion} was packed`,
        );
      if (!server.tools) fail('@toolrow/mcp-server', 'listed no tools over stdio');
    })
    .catch((error: Error) => fail('@toolrow/mcp-server', error.message));
  writeFileSync(
    join(consumer, 'agent-provider.mjs'),
    `import { resolveModel } from '@toolrow/agent';
try {
  await resolveModel({ TOOLROW_MODEL: 'anthropic:claude-haiku-4-5', ANTHROPIC_API_KEY: 'unused' });
  console.log('resolved');
} catch (error) {
  console.log(error.message);
}
`,
  );
  await sh(process.execPath, ['agent-provider.mjs'], consumer)
    .then(({ stdout }) => {
      if (!stdout.includes('needs the package @ai-sdk/anthropic, which is not installed'))
        fail('@toolrow/agent', `without @ai-sdk/anthropic, resolveModel said: ${stdout.trim()}`);
    })
    .catch((error: Error) => fail('@toolrow/agent', error.message));

  step('Typecheck a consumer file under module nodenext and moduleResolution bundler');
  writeFileSync(
    join(consumer, 'consumer.ts'),
    `${entries.map((entry, index) => `import * as m${index} from '${entry}'${withAttributes(entry)};`).join('\n')}
import type { ToolRow } from '@toolrow/declarations';
import { TOOL_NAMES, type ToolName } from '@toolrow/catalog';
import type { ToolInput } from '@toolrow/tools';
import { SERVER_VERSION } from '@toolrow/mcp-server';
const first: ToolName | undefined = TOOL_NAMES[0];
const input: ToolInput<'runQuery'> = { sql: 'select 1' };
const version: string = SERVER_VERSION;
export const used: unknown[] = [${entries.map((_, index) => `m${index}`).join(', ')}, first, input, version];
export type Row = ToolRow;
`,
  );
  const tsc = join(BIN, 'tsc');
  const typechecks = (
    [
      ['nodenext', 'nodenext'],
      ['esnext', 'bundler'],
    ] as const
  ).map(async ([module, moduleResolution]) => {
    const config = `tsconfig.${moduleResolution}.json`;
    writeFileSync(
      join(consumer, config),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          lib: ['es2023', 'dom'],
          module,
          moduleResolution,
          strict: true,
          noEmit: true,
          // Third-party declarations have their own gaps (@ai-sdk/provider needs @types/json-schema);
          // attw checks that ours resolve.
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    await sh(tsc, ['-p', config], consumer).catch((error: Error) =>
      fail(`typecheck (moduleResolution ${moduleResolution})`, error.message),
    );
  });

  step('Bundle the browser-safe packages for the browser (no Node built-ins)');
  for (const name of BROWSER_SAFE) {
    await build({
      absWorkingDir: consumer,
      stdin: { contents: `export * from '${name}';`, resolveDir: consumer, loader: 'js' },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    }).catch((error: Error) => fail(`${name} for the browser`, error.message));
  }

  await Promise.all([...lints, ...typechecks]);
  step('Done');
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s) a consumer of the packed packages would meet:`);
    for (const problem of problems) console.error(`- ${problem}`);
    return 1;
  }
  console.log(
    `${packages.length} packages packed at ${[...new Set(versions.values())].join(', ')}, installed from the tarballs alone and checked in ${((Date.now() - started) / 1000).toFixed(0)}s.`,
  );
  return 0;
}

try {
  process.exitCode = await main();
} finally {
  if (process.env.TOOLROW_PACK_CHECK_KEEP) console.log(`Scratch files kept in ${SCRATCH}`);
  else rmSync(SCRATCH, { recursive: true, force: true });
}
