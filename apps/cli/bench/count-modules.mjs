// Preloaded with --import by cold-start.ts: counts the modules a command loads and reports them
// on exit (to the file named by TOOLROW_MODULE_COUNT), so the bench can say what a start costs.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  const file = process.env.TOOLROW_MODULE_COUNT;
  if (!file) return;
  const packages = new Set(
    [...loaded].flatMap((url) => {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return match ? [match[1]] : [];
    }),
  );
  writeFileSync(file, JSON.stringify({ modules: loaded.size, packages: [...packages].sort() }));
});
