// DynamoDB Local for the tests: .ci/run starts one (scripts/ci-dynamodb.sh) and sets
// TOOLROW_TEST_DYNAMODB_URL. Each suite gets a region of its own, which DynamoDB Local keeps as a
// database of its own, so suites running at once never see each other's tables.
import { randomInt } from 'node:crypto';
import { serviceUrl } from '@toolrow/test-services';

/** The endpoint; in CI a missing one fails the run (see @toolrow/test-services). */
export const dynamoTestUrl = serviceUrl('dynamodb');

/** The test endpoint with a fresh region: an empty database of its own. */
export function freshDynamoUrl(): string {
  if (!dynamoTestUrl)
    throw new Error('TOOLROW_TEST_DYNAMODB_URL is not set: run . scripts/ci-dynamodb.sh first.');
  const url = new URL(dynamoTestUrl);
  url.searchParams.set('region', `zz-test-${randomInt(1_000_000_000)}`);
  return url.href;
}
