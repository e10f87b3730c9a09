import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** apps/desktop, absolute. */
export const DESKTOP_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where `vite build` writes the production bundle; the server serves it at `/`. */
export const DESKTOP_DIST_DIR = join(DESKTOP_ROOT, 'dist');

const REPO_ROOT = join(DESKTOP_ROOT, '..', '..');
// The bundle is made of these: the UI, its config, and the two browser-safe workspace packages.
const INPUTS = [
  join(DESKTOP_ROOT, 'src', 'ui'),
  join(DESKTOP_ROOT, 'index.html'),
  join(DESKTOP_ROOT, 'vite.config.ts'),
  join(REPO_ROOT, 'packages', 'declarations', 'src'),
  join(REPO_ROOT, 'packages', 'catalog', 'src'),
];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry.endsWith('.test.ts')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

export interface DesktopBuildState {
  /** dist/index.html exists. */
  built: boolean;
  /** A source of the bundle changed after the last build. */
  stale: boolean;
}

export function desktopBuildState(): DesktopBuildState {
  const index = join(DESKTOP_DIST_DIR, 'index.html');
  if (!existsSync(index)) return { built: false, stale: true };
  const builtAt = statSync(index).mtimeMs;
  return { built: true, stale: INPUTS.some((input) => newestMtime(input) > builtAt) };
}

/** Runs the Vite production build (the same as `npm run build -w @toolrow/desktop`); `outDir` for tests. */
export async function buildDesktop(options: { quiet?: boolean; outDir?: string } = {}): Promise<void> {
  // Imported lazily: vite is a build-time dependency, and a server with a fresh bundle never loads it.
  const { build } = await import('vite');
  await build({
    configFile: join(DESKTOP_ROOT, 'vite.config.ts'),
    root: DESKTOP_ROOT,
    logLevel: options.quiet ? 'error' : 'warn',
    ...(options.outDir ? { build: { outDir: options.outDir, emptyOutDir: true } } : {}),
  });
}

/** Builds the bundle when it is missing or older than its sources; returns whether it built. */
export async function ensureDesktopBuild(options: { quiet?: boolean } = {}): Promise<boolean> {
  const state = desktopBuildState();
  if (state.built && !state.stale) return false;
  await buildDesktop(options);
  return true;
}
