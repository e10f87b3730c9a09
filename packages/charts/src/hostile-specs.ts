// Specs that try to reach beyond the read: each layer (refuseOutside, the refusing loader) must
// stop every one alone. `base` is where a test listens for requests (a loopback server).

export interface HostileSpec {
  readonly name: string;
  /** The spec as a model would send it (no data: Toolrow binds it; some bring their own). */
  readonly spec: Record<string, unknown>;
  /** Whether drawing it with Vega's own loader would make a request (the control). */
  readonly loadsWithDefaultLoader: boolean;
}

const bar = { x: { field: 'status', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } };

export function hostileSpecs(base: string): readonly HostileSpec[] {
  return [
    {
      name: 'data.url',
      spec: { data: { url: `${base}/data.csv` }, mark: 'bar', encoding: bar },
      loadsWithDefaultLoader: true,
    },
    {
      name: 'data.url in a layer',
      spec: { layer: [{ data: { url: `${base}/layer.json` }, mark: 'bar', encoding: bar }] },
      loadsWithDefaultLoader: true,
    },
    {
      name: 'lookup from a url',
      spec: {
        mark: 'bar',
        encoding: bar,
        transform: [
          {
            lookup: 'status',
            from: { data: { url: `${base}/lookup.json` }, key: 'status', fields: ['label'] },
          },
        ],
      },
      loadsWithDefaultLoader: true,
    },
    {
      name: 'image mark',
      spec: {
        mark: 'image',
        encoding: { ...bar, url: { value: `${base}/pixel.png` } },
      },
      loadsWithDefaultLoader: true,
    },
    {
      name: 'image mark as an object',
      spec: { mark: { type: 'image', url: `${base}/pixel2.png`, width: 10, height: 10 }, encoding: bar },
      loadsWithDefaultLoader: true,
    },
    {
      name: 'href channel',
      spec: { mark: 'bar', encoding: { ...bar, href: { value: `${base}/open` } } },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'href on the mark',
      spec: { mark: { type: 'bar', href: `${base}/open` }, encoding: bar },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'usermeta',
      spec: { usermeta: { embedOptions: { loader: { baseURL: base } } }, mark: 'bar', encoding: bar },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'config',
      spec: { config: { font: `${base}/font.woff` }, mark: 'bar', encoding: bar },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'a $schema elsewhere',
      spec: { $schema: `${base}/schema.json`, mark: 'bar', encoding: bar },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'an expression that opens a window',
      spec: { mark: 'bar', encoding: bar, transform: [{ calculate: `window.open('${base}/w')`, as: 'x' }] },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'an expression reaching the constructor',
      spec: {
        mark: 'bar',
        encoding: bar,
        transform: [{ filter: "datum.constructor.constructor('return fetch')()" }],
      },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'a label expression calling data()',
      spec: { mark: 'bar', encoding: { ...bar, x: { ...bar.x, axis: { labelExpr: "data('source_0')" } } } },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'a param bound to an input',
      spec: {
        params: [{ name: 'p', value: 1, bind: { input: 'range', min: 0, max: 2 } }],
        mark: 'bar',
        encoding: bar,
      },
      loadsWithDefaultLoader: false,
    },
    {
      name: 'inline data the model wrote',
      spec: { data: { values: [{ status: 'made up', n: 1e9 }] }, mark: 'bar', encoding: bar },
      loadsWithDefaultLoader: false,
    },
  ];
}
