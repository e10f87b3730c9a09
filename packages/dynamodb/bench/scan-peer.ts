// The peer of bench/export.ts: a plain paginated Scan with the AWS SDK, each page written to an
// NDJSON file as the file takes it. Prints the items written.
//   node bench/scan-peer.ts <table> <file> <region> <endpoint>
import { createWriteStream } from 'node:fs';
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';

const [table, file, region, endpoint] = process.argv.slice(2);
const client = new DynamoDBClient({
  region: region!,
  endpoint: endpoint!,
  credentials: { accessKeyId: 'toolrowlocal', secretAccessKey: 'toolrowlocal' },
});
const out = createWriteStream(file!);
let start: Record<string, AttributeValue> | undefined;
let count = 0;
do {
  const page = await client.send(
    new ScanCommand({ TableName: table!, ...(start ? { ExclusiveStartKey: start } : {}) }),
  );
  let text = '';
  for (const item of page.Items ?? []) {
    text += `${JSON.stringify(item)}\n`;
    count++;
  }
  if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  start = page.LastEvaluatedKey;
} while (start);
await new Promise<void>((resolve) => out.end(resolve));
client.destroy();
console.log(count);
