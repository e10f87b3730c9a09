/** What DynamoDB can do that some tools need (the rows' `needs`): none of them (no foreign keys). */
export const DYNAMODB_FEATURES: readonly string[] = [];
