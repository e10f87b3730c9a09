// The two DynamoDB clients: one for reads, whose middleware refuses every operation but reads before
// a request leaves the process (a layer that holds without the statement check), and one for the
// commits the user makes, with its own AWS profile when the URL names one.
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromIni } from '@aws-sdk/credential-provider-ini';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { DataSourceError } from '@toolrow/datasource';
import type { DynamoTarget } from './url.ts';

/** The operations a read client sends: nothing that writes an item, a table or a setting. */
export const READ_OPERATIONS: ReadonlySet<string> = new Set([
  'ListTables',
  'DescribeTable',
  'DescribeTimeToLive',
  'Scan',
  'Query',
  'GetItem',
  'BatchGetItem',
  // Checked below: a statement that is not a SELECT is refused.
  'ExecuteStatement',
]);

/** A request the read client refused before it left the process. */
export class ReadOnlyViolation extends DataSourceError {
  readonly operation: string;
  constructor(operation: string, message: string) {
    super('permission', message);
    this.operation = operation;
  }
}

/**
 * The statement check of the read client, apart from the tools' PartiQL check: a SELECT at the
 * very start and nothing that could hide another statement (no comment, no `;` but a last one).
 * It refuses some statements DynamoDB would read with; the tools send them normalised.
 */
export function readClientAllowsStatement(statement: unknown): boolean {
  if (typeof statement !== 'string') return false;
  const text = statement.trim().replace(/;\s*$/, '');
  if (!/^select[\s"*(]/i.test(text)) return false;
  let quote: string | null = null;
  let unquoted = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === quote) {
        if (text[index + 1] === quote) index++;
        else quote = null;
      }
      continue;
    }
    unquoted += char;
    if (char === "'" || char === '"') quote = char;
    else if (char === ';') return false;
    else if (char === '-' && text[index + 1] === '-') return false;
    else if (char === '/' && text[index + 1] === '*') return false;
  }
  return quote === null && !WRITE_WORD.test(unquoted);
}

/** A word of a write anywhere outside quotes (a nested statement, SELECT … INTO). */
const WRITE_WORD =
  /\b(insert|update|delete|replace|upsert|remove|set|into|create|drop|alter|exec|execute)\b/i;

export interface DynamoClients {
  read: DynamoDBClient;
  /** Made on first use (a commit, or a seed): a session that only reads never has one. */
  write(): DynamoDBClient;
  close(): void;
}

/** Test switch: the read client without its allow-list, to test the other layers alone. */
export interface ClientLayerSwitches {
  readAllowList?: boolean;
}

export function createClients(target: DynamoTarget, switches: ClientLayerSwitches = {}): DynamoClients {
  const read = new DynamoDBClient(clientConfig(target, target.profile));
  if (switches.readAllowList !== false) guardReads(read);
  let writer: DynamoDBClient | undefined;
  return {
    read,
    write() {
      writer ??= new DynamoDBClient(clientConfig(target, target.commitProfile ?? target.profile));
      return writer;
    },
    close() {
      read.destroy();
      writer?.destroy();
    },
  };
}

function clientConfig(target: DynamoTarget, profile: string | undefined): DynamoDBClientConfig {
  return {
    region: target.region,
    maxAttempts: 3,
    // A backstop under each read's own time limit: an endpoint that accepts and never answers
    // frees the request (a write included) after a minute, one that never accepts after 10 s.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    ...(profile ? { profile } : {}),
    ...(target.kind === 'local' ? { credentials: localCredentials(profile) } : {}),
  };
}

/** DynamoDB Local takes any key of letters and digits: this one stands in when the machine has none. */
export const LOCAL_STAND_IN_KEY: AwsCredentialIdentity = {
  accessKeyId: 'toolrowlocal',
  secretAccessKey: 'toolrowlocal',
};

/**
 * A local endpoint signs as the AWS CLI and the SDKs on this machine do: DynamoDB Local (without
 * -sharedDb) keeps one database per access key, so the tables a user made with the AWS CLI, NoSQL
 * Workbench or an SDK are the ones their own key sees. The environment's key, else the profile's
 * (the named one, else AWS_PROFILE, else default; SSO, credential_process and assumed roles
 * included), else, only when no profile was named, the stand-in key. Never the instance metadata
 * service: a local endpoint has no use for a cloud role, and asking it costs seconds off EC2.
 */
function localCredentials(profile: string | undefined): AwsCredentialIdentityProvider {
  const fromProfile = fromIni(profile ? { profile } : {});
  // The SDK keeps what this returns until it expires (an SSO session's keys), then asks again.
  return async () => {
    if (!profile) {
      try {
        return await fromEnv()();
      } catch {
        // none in the environment: the profile, then the stand-in
      }
    }
    try {
      return await fromProfile();
    } catch (error) {
      if (profile) throw error;
      return LOCAL_STAND_IN_KEY;
    }
  };
}

/** Which access key a client signs with, for the connection test to say (the secret is never shown). */
export async function signingKeyOf(
  client: DynamoDBClient,
): Promise<{ accessKeyId: string; standIn: boolean }> {
  const credentials = await client.config.credentials();
  return {
    accessKeyId: credentials.accessKeyId,
    standIn: credentials.accessKeyId === LOCAL_STAND_IN_KEY.accessKeyId,
  };
}

/** At the last step before signing: the operation as it goes on the wire (X-Amz-Target) decides. */
function guardReads(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      const headers = request.headers ?? {};
      const target = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-amz-target')?.[1];
      const operation = target?.split('.').at(-1) ?? '(unknown)';
      if (!READ_OPERATIONS.has(operation)) {
        throw new ReadOnlyViolation(
          operation,
          `Refused before it was sent: ${operation} is not a read, and this client only reads. Writes go through the staging area and the user's commit.`,
        );
      }
      if (operation === 'ExecuteStatement') {
        let statement: unknown;
        try {
          const body =
            request.body instanceof Uint8Array
              ? new TextDecoder().decode(request.body)
              : String(request.body ?? '');
          statement = JSON.parse(body).Statement;
        } catch {
          statement = undefined;
        }
        if (!readClientAllowsStatement(statement)) {
          throw new ReadOnlyViolation(
            operation,
            'Refused before it was sent: only one SELECT statement, with no comments, is read through this client.',
          );
        }
      }
      return next(args);
    },
    { step: 'build', name: 'toolrowReadOnly', priority: 'low' },
  );
}
