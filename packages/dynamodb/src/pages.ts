// Pages of items read in parallel (DynamoDB's segmented Scan, several Queries at once), merged as
// they arrive with at most one page of each in flight: what exports and SQL reads hold in memory.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Pages = AsyncIterable<Record<string, AttributeValue>[]>;

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
