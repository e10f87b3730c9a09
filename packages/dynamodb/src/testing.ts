/**
 * Test helpers of the DynamoDB engine for every package: the SQL escape corpus and the harness that
 * detects an escape (a secret read, a file written, a request made). No test-runner imports here.
 */
export {
  createEscapeHarness,
  type Escape,
  type EscapeEffect,
  type EscapeHarness,
  SQL_ESCAPES,
} from './sql-escapes.ts';
