// Headless drawing: Vega-Lite compiled to Vega, run by a View whose loader refuses every load,
// rendered by Vega's own SVG renderer. Works in Node and the browser alike.
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { refusingLoader } from './loader.ts';

/** Draws a bound spec (bindChart's) to an SVG document. Nothing is fetched: the loader refuses. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const vega = compile(spec as unknown as TopLevelSpec).spec;
  const view = new View(parse(vega), {
    renderer: 'none',
    // biome-ignore lint/suspicious/noExplicitAny: Vega's Loader type wants its own class; ours only refuses.
    loader: refusingLoader() as any,
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
