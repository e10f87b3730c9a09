// Each layer alone against the hostile corpus, with a loopback listener that counts requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse, View, loader as vegaLoader } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindChart } from './bind.ts';
import { hostileSpecs } from './hostile-specs.ts';
import { isChartRefusal } from './refusal.ts';
import { renderSvg } from './render.ts';

const rows = {
  columns: ['status', 'n'],
  rows: [
    { status: 'paid', n: 3 },
    { status: 'new', n: 1 },
  ],
};

let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.end('status,n\nfetched,99\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The spec as it would reach the renderer with the validator switched off. */
function unchecked(spec: Record<string, unknown>): Record<string, unknown> {
  const hasData =
    'data' in spec || (Array.isArray(spec.layer) && spec.layer.some((layer) => 'data' in layer));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(hasData ? {} : { data: { values: rows.rows } }),
    ...spec,
  };
}

async function drawWithDefaultLoader(spec: Record<string, unknown>): Promise<void> {
  const view = new View(parse(compile(spec as unknown as TopLevelSpec).spec), {
    renderer: 'none',
    loader: vegaLoader(),
  });
  try {
    await view.toSVG();
  } catch {
    // A failed draw still counts what it fetched.
  } finally {
    view.finalize();
  }
}

describe('the hostile-spec corpus', () => {
  it('is refused by the validator alone (nothing drawn)', () => {
    for (const { name, spec } of hostileSpecs(base)) {
      let refused: unknown;
      try {
        bindChart(spec, rows);
      } catch (error) {
        refused = error;
      }
      expect(isChartRefusal(refused), name).toBe(true);
      expect(['outside', 'expression'], name).toContain((refused as { code: string }).code);
    }
    expect(seen).toEqual([]);
  });

  it('reaches nothing through the loader alone (the validator switched off)', async () => {
    for (const { name, spec } of hostileSpecs(base)) {
      let svg: string | undefined;
      try {
        svg = await renderSvg(unchecked(spec));
      } catch (error) {
        // Vega-Lite refusing to compile, or the loader refusing: either way nothing left.
        expect(error, name).toBeInstanceOf(Error);
      }
      if (svg) expect(svg, name).not.toMatch(new RegExp(`(href|src)="${base}`));
    }
    expect(seen).toEqual([]);
  });

  it('is a real threat: Vega’s own loader fetches what the corpus points at (the control)', async () => {
    const loading = hostileSpecs(base).filter((entry) => entry.loadsWithDefaultLoader);
    for (const { spec } of loading) await drawWithDefaultLoader(unchecked(spec));
    expect(seen.length).toBeGreaterThanOrEqual(3);
    seen.length = 0;
  });
});
