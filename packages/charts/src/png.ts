// PNG through resvg, whose binary ships inside its npm package (no download at install or run).
import { Resvg } from '@resvg/resvg-js';

/** Rasterises an SVG (renderSvg's) at `scale` (2 for a sharp image on a high-density screen). */
export function svgToPng(svg: string, options: { scale?: number } = {}): Uint8Array {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: options.scale ?? 2 },
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
