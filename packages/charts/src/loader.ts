// The second layer against a hostile spec: the renderer's loader. Vega fetches through its
// loader (data URLs, image marks, hrefs it sanitizes); this one refuses all of it, so a spec
// that slipped past refuseOutside still reaches nothing.
import { ChartRefusal } from './refusal.ts';

function refuse(what: string): never {
  throw new ChartRefusal(
    'outside',
    `A chart loads nothing (it tried ${what}): Toolrow binds the read’s rows as its only data.`,
  );
}

/** Requests the loader refused in this process: what a test reads to prove nothing left. */
let refusedLoads = 0;
export function refusedLoadCount(): number {
  return refusedLoads;
}

/** A Vega loader whose every file and network path refuses. */
export function refusingLoader() {
  const deny = (what: string) => {
    refusedLoads += 1;
    return refuse(what);
  };
  return {
    options: {},
    fileAccess: false,
    async load(uri: string): Promise<string> {
      return deny(`to load ${JSON.stringify(String(uri).slice(0, 120))}`);
    },
    // Vega asks here before an image or a link: an empty href is its "no" (a rejection would
    // crash its SVG renderer), so nothing is loaded or linked.
    async sanitize(_uri: string): Promise<{ href: string }> {
      refusedLoads += 1;
      return { href: '' };
    },
    async http(uri: string): Promise<string> {
      return deny(`to fetch ${JSON.stringify(String(uri).slice(0, 120))}`);
    },
    async file(path: string): Promise<string> {
      return deny(`to read the file ${JSON.stringify(String(path).slice(0, 120))}`);
    },
  };
}
