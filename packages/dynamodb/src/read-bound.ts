// The bound on the items one read may evaluate — the user's setting (maxItemsRead in the
// connection's URL), never the agent's — and what a read would cost, for the refusal and the plan.

/** Items one read may evaluate unless the connection's URL says otherwise. */
export const MAX_ITEMS_READ = 100_000;

/**
 * Items a second a read is taken to take, for the time a plan estimates: a plain paginated SDK Scan
 * of whole items read about 12,000 a second on DynamoDB Local (bench/export.ts); a projected
 * parallel Scan is faster (bench/group-by.ts), so the estimate errs long.
 */
const ITEMS_PER_SECOND = 12_000;

/** A table's size, as DescribeTable reports it. */
export interface TableSize {
  rowEstimate: number;
  tableBytes: number;
}

/**
 * What reading `items` of a table costs, in words: the items, the read capacity (a Scan or Query
 * reads eventually consistent, half a unit per 4 KB; a consistent get a unit per item up to 4 KB)
 * and the time.
 */
export function readCost(items: number, table: TableSize | undefined, consistentGets = false): string {
  const itemBytes = table && table.rowEstimate > 0 ? table.tableBytes / table.rowEstimate : 1024;
  const units = consistentGets
    ? items * Math.max(1, Math.ceil(itemBytes / 4096))
    : Math.ceil((items * itemBytes) / 4096) / 2;
  const seconds = Math.max(1, Math.round(items / ITEMS_PER_SECOND));
  return `about ${Math.round(items).toLocaleString('en-US')} items, ${Math.ceil(units).toLocaleString('en-US')} read capacity units and ${seconds.toLocaleString('en-US')} s`;
}

/** How a person raises the bound: their connection's setting, not the statement's. */
export function raiseBound(items: number): string {
  const suggested = Math.ceil((items * 1.2) / 10_000) * 10_000;
  return `To read it anyway, raise the connection's bound: maxItemsRead=${suggested} in its URL (toolrow connections set <name> --max-items-read ${suggested}).`;
}
