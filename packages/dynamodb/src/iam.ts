// The IAM policies of the third read layer, which only the user can put in place: a read profile
// that can only read, and a commit profile that may also write the items the user commits.
import type { DynamoTarget } from './url.ts';

export const READ_ACTIONS = [
  'dynamodb:ListTables',
  'dynamodb:DescribeTable',
  'dynamodb:DescribeTimeToLive',
  'dynamodb:Scan',
  'dynamodb:Query',
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PartiQLSelect',
] as const;

/** What a commit sends: one TransactWriteItems of conditional puts and deletes. */
export const COMMIT_ACTIONS = [
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
] as const;

export function iamPolicies(target: Pick<DynamoTarget, 'region'>, tables: readonly string[] = []) {
  const resources = (withIndexes: boolean) =>
    tables.length === 0
      ? [
          `arn:aws:dynamodb:${target.region}:*:table/*`,
          ...(withIndexes ? [`arn:aws:dynamodb:${target.region}:*:table/*/index/*`] : []),
        ]
      : tables.flatMap((table) => [
          `arn:aws:dynamodb:${target.region}:*:table/${table}`,
          ...(withIndexes ? [`arn:aws:dynamodb:${target.region}:*:table/${table}/index/*`] : []),
        ]);
  return {
    read: {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'ToolrowList', Effect: 'Allow', Action: ['dynamodb:ListTables'], Resource: '*' },
        {
          Sid: 'ToolrowRead',
          Effect: 'Allow',
          Action: READ_ACTIONS.filter((action) => action !== 'dynamodb:ListTables'),
          Resource: resources(true),
        },
      ],
    },
    commit: {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'ToolrowCommit', Effect: 'Allow', Action: [...COMMIT_ACTIONS], Resource: resources(false) },
      ],
    },
  };
}
