// Pages of items read in parallel (DynamoDB's segmented Scan, several Queries at once), merged as
// they arrive with at most one page of each in flight: what exports and SQL reads hold in memory.
import {
  type AttributeValue,
  type DynamoDBClient,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';

export type Pages = AsyncIterable<Record<string, AttributeValue>[]>;

/** Segments a whole-table Scan is read in at once (DynamoDB's parallel scan), at the least. */
export const SCAN_SEGMENTS = 4;
/** At the most: each holds a page in flight. */
const MAX_SCAN_SEGMENTS = 32;
/** DynamoDB's rule of thumb: a segment per 2 GB of table. */
const BYTES_PER_SEGMENT = 2 * 1024 ** 3;

/** Segments for a table of this size: more as it grows, so a large Scan's time does not. */
export function segmentsFor(tableBytes: number): number {
  return Math.min(MAX_SCAN_SEGMENTS, Math.max(SCAN_SEGMENTS, Math.ceil(tableBytes / BYTES_PER_SEGMENT)));
}
/**
 * Items a segment reads per request: a page in flight per segment is what a reader holds, so a
 * page well under DynamoDB's 1 MB keeps the memory of four at once small, whatever the item count.
 */
export const SCAN_PAGE_ITEMS = 1000;

/**
 * A whole table as a parallel Scan (segmentsFor its size), SCAN_PAGE_ITEMS a request, pages
 * merged as they arrive; `onPage` sees each response (its scanned count, its capacity).
 */
export function parallelScan(
  client: DynamoDBClient,
  input: Omit<ScanCommandInput, 'Segment' | 'TotalSegments' | 'Limit' | 'ExclusiveStartKey'>,
  options: {
    signal?: AbortSignal;
    onPage?: (page: ScanCommandOutput) => void;
    /** The table's size (DescribeTable's), which decides the segments. */
    tableBytes?: number;
  } = {},
): Pages {
  const segments = segmentsFor(options.tableBytes ?? 0);
  async function* segment(index: number): Pages {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          ...input,
          Segment: index,
          TotalSegments: segments,
          Limit: SCAN_PAGE_ITEMS,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
        options.signal ? { abortSignal: options.signal } : {},
      );
      options.onPage?.(page);
      yield page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return merge(Array.from({ length: segments }, (_, index) => segment(index)));
}

/**
 * Pages of several sources as they arrive, at most one page of each in memory, and at most
 * `concurrency` sources read at once (the next starts when one ends): a lookup of many keys is
 * many Queries, never many sockets at once.
 */
export async function* merge(sources: Pages[], concurrency = sources.length): Pages {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pending = new Map<
    number,
    Promise<{ index: number; result: IteratorResult<Record<string, AttributeValue>[]> }>
  >();
  const pull = (index: number) =>
    pending.set(
      index,
      iterators[index]!.next().then((result) => ({ index, result })),
    );
  let started = Math.min(Math.max(1, concurrency), iterators.length);
  for (let index = 0; index < started; index++) pull(index);
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(index);
        if (started < iterators.length) pull(started++);
        continue;
      }
      yield result.value;
      pull(index);
    }
  } finally {
    await Promise.allSettled(iterators.map((iterator) => iterator.return?.()));
  }
}
