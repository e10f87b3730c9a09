import type { EngineFeature } from '@toolrow/datasource/engine';

/**
 * What DynamoDB can do: the descriptor's list, which its connections carry too. No foreign keys;
 * its values are typed (numbers, sets, maps, binary); its read-only layer is an IAM policy the user
 * attaches, which the connection looks for.
 */
export const DYNAMODB_FEATURES: readonly EngineFeature[] = [
  'stagedWrites',
  'exports',
  'cancel',
  'seed',
  'readerRoles',
  'typedValues',
];
