import { describe, expect, it } from 'vitest';
import { MissingServiceError, missingReason, SERVICES, serviceUrl } from './index.ts';

describe('serviceUrl', () => {
  it.each(Object.keys(SERVICES) as (keyof typeof SERVICES)[])(
    '%s: the URL when it is set, trimmed',
    (name) => {
      expect(serviceUrl(name, { [SERVICES[name].variable]: ' http://127.0.0.1:1 ', CI: 'true' })).toBe(
        'http://127.0.0.1:1',
      );
    },
  );

  it.each(Object.keys(SERVICES) as (keyof typeof SERVICES)[])(
    '%s: missing in CI fails, naming the variable and the script that starts it',
    (name) => {
      expect(() => serviceUrl(name, { CI: 'true' })).toThrow(MissingServiceError);
      expect(() => serviceUrl(name, { CI: 'true', [SERVICES[name].variable]: '  ' })).toThrow(
        new RegExp(`${SERVICES[name].variable} is not set: \`\\. scripts/ci-`),
      );
    },
  );

  it('missing elsewhere is undefined, with a reason for the skipped suite', () => {
    expect(serviceUrl('dynamodb', {})).toBeUndefined();
    expect(missingReason('dynamodb')).toBe(
      "TOOLROW_TEST_DYNAMODB_URL is not set: `. scripts/ci-dynamodb.sh` starts AWS's DynamoDB Local and sets it",
    );
  });
});
