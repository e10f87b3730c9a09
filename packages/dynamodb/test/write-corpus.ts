// Write attempts every read path must refuse, for the tests of each read layer alone: PartiQL
// statements that write (in many spellings) and the write operations of the DynamoDB API.
import {
  BatchExecuteStatementCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

const INSERT = `INSERT INTO "orders" VALUE {'id': 999001, 'status': 'forged', 'customer_id': 1, 'ordered_at': 'x'}`;
const UPDATE = `UPDATE "orders" SET "status" = 'forged' WHERE "id" = 1`;
const DELETE = `DELETE FROM "orders" WHERE "id" = 2`;

/** PartiQL statements that write, or try to hide a write: the statement check refuses each one. */
export const PARTIQL_WRITES: readonly string[] = [
  INSERT,
  UPDATE,
  DELETE,
  INSERT.toLowerCase().replace(`'forged'`, `'FORGED'`),
  UPDATE.toLowerCase(),
  DELETE.toLowerCase(),
  INSERT.replace('INSERT', 'Insert'),
  UPDATE.replace('UPDATE', 'uPdAtE'),
  DELETE.replace('DELETE', 'DeLeTe'),
  `  \n\t${UPDATE}`,
  `\n\n${DELETE};`,
  `/* a comment */ ${UPDATE}`,
  `-- a comment\n${DELETE}`,
  `/* SELECT */ ${DELETE}`,
  `/* /* */ SELECT * FROM "orders" */ ${DELETE}`,
  `-- SELECT\n${INSERT}`,
  `SELECT * FROM "orders"; ${DELETE}`,
  `SELECT * FROM "orders";${UPDATE}`,
  `SELECT * FROM "orders" WHERE "id" = 1; ${INSERT}`,
  `SELECT * FROM "orders" WHERE "id" = 1 ; ; ${DELETE}`,
  `${UPDATE} RETURNING ALL NEW *`,
  `UPDATE "orders" REMOVE "note" WHERE "id" = 1`,
  `UPDATE "orders" SET "tags" = set_add("tags", <<'x'>>) WHERE "id" = 1`,
  `UPDATE "orders" SET "total" = "total" + 1 WHERE "id" = 1`,
  `DELETE FROM "orders" WHERE "id" = 3 RETURNING ALL OLD *`,
  `INSERT INTO orders VALUE {'id': 999002}`,
  `DELETE FROM orders WHERE id = 4`,
  `UPDATE orders SET status = 'x' WHERE id = 5`,
  `EXISTS(SELECT * FROM "orders" WHERE "id" = 1)`,
  `SELECT * FROM "orders" WHERE EXISTS(${DELETE})`,
  `SELECT * FROM (${DELETE})`,
  `SELECT * FROM "orders" WHERE "id" IN (${UPDATE})`,
  `SELECT "id" FROM "orders" UNION ${DELETE}`,
  `REPLACE INTO "orders" VALUE {'id': 1}`,
  `UPSERT INTO "orders" VALUE {'id': 1}`,
  `CREATE TABLE "forged" ("id" INT)`,
  `DROP TABLE "orders"`,
  `ALTER TABLE "orders" ADD "x" INT`,
  `EXEC sp_delete`,
  `EXECUTE forged`,
  `BEGIN TRANSACTION; ${DELETE}; COMMIT`,
  `COMMIT`,
  `ROLLBACK`,
  `SELECT * INTO "copy" FROM "orders"`,
  `\`${DELETE}\``,
  `SELECT * FROM "orders" WHERE "id" = \`1\`; ${DELETE}`,
  `'SELECT'; ${DELETE}`,
  `"SELECT" ${DELETE}`,
  `SELECT * FROM "orders" /* unterminated ${DELETE}`,
  `SELECT * FROM "orders" WHERE "status" = 'open; ${DELETE}`,
  `\u00a0${DELETE}`,
  `\uFEFF${UPDATE}`,
  `ＳＥＬＥＣＴ * FROM "orders"; ${DELETE}`,
  `${DELETE} -- SELECT`,
  `SELECT * FROM "orders" WHERE "id" = 1 OR 1 = 1; ${UPDATE}`,
  `select * from "orders" where "id" = 1;\n${DELETE.toLowerCase()}`,
];

/** The write operations of the API, as a read client would be asked to send them. */
export function apiWrites(): { name: string; command: object }[] {
  const item = {
    id: { N: '999003' },
    status: { S: 'forged' },
    customer_id: { N: '1' },
    ordered_at: { S: 'x' },
  };
  return [
    { name: 'PutItem', command: new PutItemCommand({ TableName: 'orders', Item: item }) },
    {
      name: 'UpdateItem',
      command: new UpdateItemCommand({
        TableName: 'orders',
        Key: { id: { N: '1' } },
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: 'forged' } },
      }),
    },
    { name: 'DeleteItem', command: new DeleteItemCommand({ TableName: 'orders', Key: { id: { N: '2' } } }) },
    {
      name: 'BatchWriteItem',
      command: new BatchWriteItemCommand({
        RequestItems: { orders: [{ DeleteRequest: { Key: { id: { N: '3' } } } }] },
      }),
    },
    {
      name: 'TransactWriteItems',
      command: new TransactWriteItemsCommand({
        TransactItems: [{ Delete: { TableName: 'orders', Key: { id: { N: '4' } } } }],
      }),
    },
    { name: 'ExecuteStatement (UPDATE)', command: new ExecuteStatementCommand({ Statement: UPDATE }) },
    { name: 'ExecuteStatement (DELETE)', command: new ExecuteStatementCommand({ Statement: DELETE }) },
    { name: 'ExecuteStatement (INSERT)', command: new ExecuteStatementCommand({ Statement: INSERT }) },
    {
      name: 'ExecuteStatement (comment, then DELETE)',
      command: new ExecuteStatementCommand({ Statement: `/* SELECT */ ${DELETE}` }),
    },
    {
      name: 'BatchExecuteStatement',
      command: new BatchExecuteStatementCommand({ Statements: [{ Statement: DELETE }] }),
    },
    {
      name: 'BatchExecuteStatement (SELECT only)',
      command: new BatchExecuteStatementCommand({
        Statements: [{ Statement: 'SELECT * FROM "orders" WHERE "id" = 1' }],
      }),
    },
    {
      name: 'ExecuteTransaction',
      command: new ExecuteTransactionCommand({ TransactStatements: [{ Statement: UPDATE }] }),
    },
    {
      name: 'CreateTable',
      command: new CreateTableCommand({
        TableName: 'forged',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    },
    { name: 'DeleteTable', command: new DeleteTableCommand({ TableName: 'customers' }) },
    {
      name: 'UpdateTable',
      command: new UpdateTableCommand({
        TableName: 'orders',
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      }),
    },
    {
      name: 'UpdateTimeToLive',
      command: new UpdateTimeToLiveCommand({
        TableName: 'orders',
        TimeToLiveSpecification: { AttributeName: 'ordered_at', Enabled: true },
      }),
    },
  ];
}
