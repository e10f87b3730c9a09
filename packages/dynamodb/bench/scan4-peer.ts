// The peer of bench/group-by.ts: a bare 4-segment parallel Scan of the table with the AWS SDK,
// every page read to the end and its items counted. Prints the items read.
//   node bench/scan4-peer.ts <table> <region> <endpoint>
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';

const [table, region, endpoint] = process.argv.slice(2);
const client = new DynamoDBClient({
  region: region!,
  endpoint: endpoint!,
  credentials: { accessKeyId: 'toolrowlocal', secretAccessKey: 'toolrowlocal' },
});
const SEGMENTS = 4;
const counts = await Promise.all(
  Array.from({ length: SEGMENTS }, async (_, segment) => {
    let start: Record<string, AttributeValue> | undefined;
    let count = 0;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: table!,
          Segment: segment,
          TotalSegments: SEGMENTS,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }),
);
client.destroy();
console.log(counts.reduce((sum, count) => sum + count, 0));
