// Node-side API of the desktop app, for the server that serves it: where the production bundle
// lives and how to (re)build it. The browser code itself lives in src/ui and imports none of this.
export {
  buildDesktop,
  DESKTOP_DIST_DIR,
  DESKTOP_ROOT,
  type DesktopBuildState,
  desktopBuildState,
  ensureDesktopBuild,
} from './build.ts';
