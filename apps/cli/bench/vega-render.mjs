// The peer's last step: a Vega spec (vl2vg's output) drawn to SVG by Vega in Node, as vega-cli's
// vg2svg does (vega-cli itself needs node-canvas, whose binary downloads from GitHub at install).
//   node vega-render.mjs spec.vg.json out.svg
import { readFileSync, writeFileSync } from 'node:fs';
import { loader, parse, View } from 'vega';

const [specFile, outFile] = process.argv.slice(2);
const view = new View(parse(JSON.parse(readFileSync(specFile, 'utf8'))), {
  renderer: 'none',
  loader: loader(),
});
writeFileSync(outFile, await view.toSVG());
view.finalize();
