// Which external services a test suite needs, decided in one place. In CI (CI=true) a missing
// service fails the run at once, naming how to start it; elsewhere the suite is reported as
// skipped with the reason in its title — never silently absent, as a suite inside `if (url) { … }`
// would be.
import { describe } from 'vitest';

export type ServiceName = 'postgres' | 'dynamodb' | 'mariadb';

interface Service {
  /** The environment variable that holds its URL. */
  variable: string;
  what: string;
  /** What starts one (the script .ci/run sources). */
  start: string;
}

export const SERVICES: Readonly<Record<ServiceName, Service>> = {
  postgres: {
    variable: 'TOOLROW_TEST_DATABASE_URL',
    what: 'a PostgreSQL server',
    start: '. scripts/ci-postgres.sh',
  },
  dynamodb: {
    variable: 'TOOLROW_TEST_DYNAMODB_URL',
    what: "AWS's DynamoDB Local",
    start: '. scripts/ci-dynamodb.sh',
  },
  mariadb: {
    variable: 'TOOLROW_TEST_MARIADB_URL',
    what: 'a MariaDB server',
    start: '. scripts/ci-mariadb.sh',
  },
};

export class MissingServiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingServiceError';
  }
}

/** Why a suite that needs `name` cannot run here, in a sentence. */
export function missingReason(name: ServiceName): string {
  const { variable, what, start } = SERVICES[name];
  return `${variable} is not set: \`${start}\` starts ${what} and sets it`;
}

/**
 * The service's URL. Missing: in CI an error naming how to start it (the run fails); elsewhere
 * undefined, for the suite to be skipped with `missingReason`.
 */
export function serviceUrl(
  name: ServiceName,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const url = env[SERVICES[name].variable]?.trim() || undefined;
  if (!url && env.CI === 'true')
    throw new MissingServiceError(`CI must start ${SERVICES[name].what}: ${missingReason(name)}.`);
  return url;
}

/**
 * A suite that needs a service: run with its URL when it is there; in CI a missing one throws;
 * elsewhere the suite is registered as skipped, its title saying why.
 */
export function describeWithService(name: ServiceName, title: string, body: (url: string) => void): void {
  const url = serviceUrl(name);
  if (url) describe(title, () => body(url));
  else describe.skip(`${title} — skipped: ${missingReason(name)}`, () => body(''));
}
