import { describe, expect, it } from 'vitest';
import { parseDynamoUrl } from './url.ts';

describe('dynamodb:// URLs', () => {
  it.each([
    [
      'dynamodb://127.0.0.1:8000?region=us-east-1',
      {
        kind: 'local',
        endpoint: 'http://127.0.0.1:8000',
        region: 'us-east-1',
        url: 'dynamodb://127.0.0.1:8000?region=us-east-1',
      },
    ],
    ['dynamodb://localhost', { kind: 'local', endpoint: 'http://localhost:8000', region: 'us-east-1' }],
    [
      'dynamodb://aws/eu-west-1?profile=analyst&commitProfile=writer',
      {
        kind: 'aws',
        region: 'eu-west-1',
        profile: 'analyst',
        commitProfile: 'writer',
        description: 'DynamoDB eu-west-1, profile analyst, commits as writer',
        url: 'dynamodb://aws/eu-west-1?profile=analyst&commitProfile=writer',
      },
    ],
    [
      'dynamodb://aws/ap-southeast-2',
      { kind: 'aws', region: 'ap-southeast-2', description: 'DynamoDB ap-southeast-2' },
    ],
    [
      'dynamodb://aws/eu-west-1?maxItemsRead=400000',
      { maxItemsRead: 400_000, url: 'dynamodb://aws/eu-west-1?maxItemsRead=400000' },
    ],
    [
      'dynamodb://127.0.0.1:8000?maxItemsRead=50&region=us-east-1',
      { maxItemsRead: 50, url: 'dynamodb://127.0.0.1:8000?region=us-east-1&maxItemsRead=50' },
    ],
  ])('%s', (raw, expected) => {
    const target = parseDynamoUrl(raw);
    expect(target).toMatchObject(expected);
    if (target.kind === 'aws') expect(target.endpoint).toBeUndefined();
  });

  it.each([
    ['dynamodb://key:secret@127.0.0.1:8000', /holds no credentials. Name an AWS profile/],
    ['dynamodb://aws/nowhere', /'nowhere' is not an AWS region/],
    ['dynamodb://aws/', /'\(none\)' is not an AWS region/],
    ['dynamodb://aws/us-east-1?region=us-west-2', /the region is the path/],
    ['dynamodb://127.0.0.1:8000?region=mars', /'mars' is not an AWS region/],
    ['dynamodb://127.0.0.1:8000/tables', /takes no path/],
    ['dynamodb://127.0.0.1:8000?table=x', /unknown setting 'table'/],
    ['dynamodb://127.0.0.1:8000?maxItemsRead=0', /maxItemsRead='0' is not a count of items/],
    ['dynamodb://127.0.0.1:8000?maxItemsRead=1e6', /maxItemsRead='1e6' is not a count of items/],
    ['dynamodb://127.0.0.1:8000?maxItemsRead=2000000000', /from 1 to 1,000,000,000/],
    ['dynamodb://127.0.0.1:8000?maxItemsRead=', /maxItemsRead='' is not a count/],
    ['dynamodb://aws/us-east-1?profile=bad%20name', /not an AWS profile name \(profile=\)/],
    ['postgres://h/db', /starts with dynamodb:\/\//],
    ['dynamodb:', /no host|not a URL/],
  ])('refuses %s, naming what is wrong', (raw, message) => {
    expect(() => parseDynamoUrl(raw, 'url')).toThrow(message);
    expect(() => parseDynamoUrl(raw, 'url')).toThrow(/^url: /);
  });
});
