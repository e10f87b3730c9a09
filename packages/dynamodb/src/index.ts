// @toolrow/dynamodb: the DynamoDB engine of Toolrow's data seam. See README.md.
export { MAX_TRANSACTION_ITEMS } from './changes.ts';
export { createClients, READ_OPERATIONS, ReadOnlyViolation, readClientAllowsStatement } from './clients.ts';
export { dynamodbEngine } from './engine.ts';
export { COMMIT_ACTIONS, iamPolicies, READ_ACTIONS } from './iam.ts';
export { checkReadOnlyPartiql, PartiqlGuardError, type PartiqlRead } from './partiql-guard.ts';
export { type OpenDynamoOptions, openDynamoDataSource } from './source.ts';
export { type DynamoTarget, isDynamoUrl, parseDynamoUrl } from './url.ts';
