// A commit larger than one DynamoDB transaction (100 items): refused whole, applying nothing and
// offering the parts; confirmed in parts, each part all or nothing, stopping at the first refused.
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { createClients, parseDynamoUrl } from '@toolrow/dynamodb';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dynamoTestStore } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

const store = dynamoTestStore();

describeWithService('dynamodb', 'a DynamoDB commit of more than 100 changes', () => {
  let toolrow: Toolrow;
  const priced = async (ids: number[]) =>
    Promise.all(ids.map(async (id) => (await toolrow.source.rows.get('orders', { id }))?.status));

  beforeAll(async () => {
    toolrow = await store!.open({ seed: { orders: 140 } });
  }, 180_000);
  afterAll(() => toolrow?.close());

  it('is refused whole without --in-parts, applying nothing, and offers the parts', async () => {
    const count = await toolrow.source.rows.count('orders');
    expect(count).toBeGreaterThan(100);
    const ids = Array.from({ length: 130 }, (_, index) => index + 1).filter((id) => id <= count);
    await toolrow.state.staging.stageUpdate(
      'orders',
      ids.map((id) => ({ key: { id }, values: { status: 'first-pass' } })),
      { actor: 'agent' },
    );
    await expect(toolrow.state.staging.commit()).rejects.toThrow(
      /at most 100 changes in one transaction, and 130 are selected: nothing was applied. Commit them in 2 parts/,
    );
    expect(new Set(await priced(ids))).not.toContain('first-pass');

    const result = await toolrow.state.staging.commit(undefined, { inParts: true });
    expect(result).toMatchObject({ ok: true, parts: 2, applied: { update: 130 } });
    expect(new Set(await priced(ids))).toEqual(new Set(['first-pass']));
    expect(await toolrow.state.staging.list()).toEqual([]);
  });

  it('stops at the first part refused: the parts before it stay, the refused part applies nothing', async () => {
    const ids = Array.from({ length: 130 }, (_, index) => index + 1);
    await toolrow.state.staging.stageUpdate(
      'orders',
      ids.map((id) => ({ key: { id }, values: { status: 'second-pass' } })),
      { actor: 'agent' },
    );
    // Another writer changes order 120 (in the second part) after it was staged.
    const url = new URL(serviceUrl('dynamodb')!);
    url.searchParams.set('region', /\(([^)]+)\)$/.exec(toolrow.source.description)![1]!);
    const other = createClients(parseDynamoUrl(url.href));
    try {
      await other.write().send(
        new UpdateItemCommand({
          TableName: 'orders',
          Key: { id: { N: '120' } },
          UpdateExpression: 'SET #s = :s',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': { S: 'changed elsewhere' } },
        }),
      );
    } finally {
      other.close();
    }
    const result = await toolrow.state.staging.commit(undefined, { inParts: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.appliedBefore).toMatchObject({ parts: 1, applied: { update: 100 } });
    expect(result.conflicts.map((conflict) => conflict.key)).toEqual([{ id: '120' }]);
    const prices = await priced(ids);
    expect(prices.slice(0, 100)).toEqual(Array(100).fill('second-pass'));
    expect(prices.slice(100)).not.toContain('second-pass');
    expect((await toolrow.state.staging.list()).length).toBe(30);
  });
});
