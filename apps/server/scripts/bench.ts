// `npm run bench -w @toolrow/server`: is the app fast on 50 000 rows? Every figure is a ratio
// against a baseline measured in this same run, so it means the same on any machine.
//
// 1. API paging: a 200-row page deep in the 50k-row orders table (offset 25 000 and 49 800) against
//    the first page. OFFSET paging reads past the skipped rows; the ratio shows what that costs.
// 2. The grid in Chromium: time to first rows, rows in the DOM, and a jump to the last row, for
//    orders (50 000 rows) against products (500 rows). Virtualisation should keep these near 1.
import { performance } from 'node:perf_hooks';
import {
  bearer,
  chromiumPath,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
} from '../src/test-support.ts';

const ROUNDS = Number(process.env.TOOLROW_BENCH_ROUNDS ?? 15);
const out = (text: string) => process.stdout.write(`${text}\n`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main() {
  await ensureBundle();
  const toolrow = await openSeededSource(50_000);
  const { source, state } = toolrow;
  const app = await startTestServer(toolrow);
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    const orders = await source.rows.count('orders');
    out(
      `orders: ${orders} rows; products: ${await source.rows.count('products')} rows; ${ROUNDS} rounds, medians`,
    );

    // ── 1. API paging ──────────────────────────────────────────────────────────────────────
    const page = async (offset: number) => {
      const started = performance.now();
      const response = await fetch(`${app.url}/api/tables/orders/rows`, {
        method: 'POST',
        headers: bearer(app.token, { 'content-type': 'application/json' }),
        body: JSON.stringify({ offset, limit: 200, sort: [] }),
      });
      const body = (await response.json()) as { rows: unknown[] };
      if (body.rows.length === 0) throw new Error(`no rows at offset ${offset}`);
      return performance.now() - started;
    };
    const offsets = [0, 25_000, orders - 200];
    const times = new Map<number, number[]>(offsets.map((offset) => [offset, []]));
    for (let round = 0; round < ROUNDS + 2; round++) {
      for (const offset of offsets) {
        const ms = await page(offset);
        if (round >= 2) times.get(offset)?.push(ms);
      }
    }
    const base = median(times.get(0) ?? []);
    out('\nAPI: one 200-row page of orders (baseline: offset 0)');
    for (const offset of offsets) {
      const ms = median(times.get(offset) ?? []);
      out(`  offset ${String(offset).padStart(6)}  ${(ms / base).toFixed(2)}×  (${ms.toFixed(1)} ms)`);
    }

    // ── 2. The grid in the browser ─────────────────────────────────────────────────────────
    // Without Chromium the grid part is skipped, not failed: the open server and database would
    // otherwise keep this process (and `npm run bench`) waiting forever.
    try {
      chromiumPath();
    } catch (error) {
      out(`\nGrid bench skipped: ${(error as Error).message}`);
      return;
    }
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(app.openUrl); // signs the browser in (a cookie) once
    const measure = async (table: string) => {
      await state.ui.update('default', { tabs: [], focusedTabId: null, selection: null });
      await tab.goto(`${app.url}/`);
      await tab
        .getByRole('navigation', { name: 'Tables and panels' })
        .getByRole('button', { name: new RegExp(`^${table}`) })
        .waitFor();
      const started = performance.now();
      await tab
        .getByRole('navigation', { name: 'Tables and panels' })
        .getByRole('button', { name: new RegExp(`^${table}`) })
        .click();
      await tab.locator('.grid-row [role=gridcell]').first().waitFor();
      const firstRows = performance.now() - started;
      await tab.getByTestId('row-count').filter({ hasText: 'rows' }).waitFor();
      const domRows = await tab.locator('.grid-row').count();
      const total = Number((await tab.getByTestId('row-count').textContent())?.replace(/\D/g, ''));
      const jumpStarted = performance.now();
      await tab.locator('.grid').focus();
      await tab.keyboard.press('Control+End');
      await tab
        .locator(`.grid-row[aria-rowindex="${total + 1}"] [role=gridcell]`)
        .first()
        .waitFor();
      const jump = performance.now() - jumpStarted;
      const heap = await tab.evaluate(
        () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
      );
      return { firstRows, domRows, jump, heap };
    };
    const small: ReturnType<typeof measure> extends Promise<infer R> ? R[] : never = [];
    const large: typeof small = [];
    for (let round = 0; round < Math.max(3, Math.ceil(ROUNDS / 3)); round++) {
      small.push(await measure('products'));
      large.push(await measure('orders'));
    }
    const m = (runs: typeof small, key: keyof (typeof small)[number]) => median(runs.map((run) => run[key]));
    out('\nGrid: orders (50 000 rows) against products (500 rows)');
    out(
      `  time to first rows   ${(m(large, 'firstRows') / m(small, 'firstRows')).toFixed(2)}×  (${m(large, 'firstRows').toFixed(0)} vs ${m(small, 'firstRows').toFixed(0)} ms)`,
    );
    out(
      `  rows in the DOM      ${(m(large, 'domRows') / m(small, 'domRows')).toFixed(2)}×  (${m(large, 'domRows')} vs ${m(small, 'domRows')})`,
    );
    out(
      `  jump to the last row ${(m(large, 'jump') / m(small, 'jump')).toFixed(2)}×  (${m(large, 'jump').toFixed(0)} vs ${m(small, 'jump').toFixed(0)} ms)`,
    );
    if (m(small, 'heap') > 0) {
      out(
        `  JS heap              ${(m(large, 'heap') / m(small, 'heap')).toFixed(2)}×  (${(m(large, 'heap') / 1e6).toFixed(1)} vs ${(m(small, 'heap') / 1e6).toFixed(1)} MB)`,
      );
    }
    await context.close();
  } finally {
    await browser?.close();
    await app.close();
    await toolrow.close();
  }
}

main().catch((error) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
