// dynamodb:// URLs: a local endpoint (DynamoDB Local, over http) or AWS in a region, with the AWS
// profile reads use and, apart, the one commits use.
import { DataSourceError } from '@toolrow/datasource/errors';

export interface DynamoTarget {
  /** 'local': an endpoint of its own (DynamoDB Local); 'aws': the region's AWS endpoint. */
  kind: 'local' | 'aws';
  /** http://host:port for a local endpoint. */
  endpoint?: string;
  region: string;
  /** The AWS profile reads use (default: the SDK's chain: env, shared config, SSO). */
  profile?: string;
  /** The AWS profile commits use, when not the read profile (a read-only profile for reads). */
  commitProfile?: string;
  /**
   * The attribute that versions items (DynamoDB's optimistic lock, as DynamoDBMapper keeps it):
   * on a table whose items have it, a commit's condition holds it and the write increments it.
   */
  versionAttribute?: string;
  /** Items one read may evaluate (the user's setting; default MAX_ITEMS_READ). */
  maxItemsRead?: number;
  /** Where it points, with no secret (a URL never holds one: credentials come from AWS profiles). */
  description: string;
  /** The URL in its canonical form. */
  url: string;
}

const FORMS =
  'dynamodb://127.0.0.1:8000?region=us-east-1 (a local endpoint), or dynamodb://aws/<region>?profile=<aws profile> (AWS)';
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const PROFILE = /^[\w.+@-]{1,128}$/;
const KNOWN = new Set(['region', 'profile', 'commitProfile', 'version', 'maxItemsRead']);
/** The largest read bound a URL may set: a billion items. */
const MAX_READ_BOUND = 1_000_000_000;
const ATTRIBUTE = /^[A-Za-z_][A-Za-z0-9_.-]{0,254}$/;

/** True when a URL is DynamoDB's (the engine to load is decided on this). */
export function isDynamoUrl(raw: string): boolean {
  return /^dynamodb:/i.test(raw.trim());
}

/** Parses a dynamodb:// URL; `field` names where it came from in errors (DATABASE_URL, url, …). */
export function parseDynamoUrl(raw: string, field = 'url'): DynamoTarget {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new DataSourceError('config', `${field}: '${raw}' is not a URL. Use ${FORMS}.`);
  }
  if (url.protocol !== 'dynamodb:') {
    throw new DataSourceError('config', `${field}: a DynamoDB URL starts with dynamodb://. Use ${FORMS}.`);
  }
  if (url.username || url.password) {
    throw new DataSourceError(
      'config',
      `${field}: a DynamoDB URL holds no credentials. Name an AWS profile instead (?profile=…), whose keys stay in ~/.aws; nothing was saved.`,
    );
  }
  for (const key of url.searchParams.keys()) {
    if (!KNOWN.has(key)) {
      throw new DataSourceError(
        'config',
        `${field}: unknown setting '${key}'. A DynamoDB URL takes ${[...KNOWN].join(', ')}.`,
      );
    }
  }
  const profile = checkedProfile(url.searchParams.get('profile'), 'profile', field);
  const commitProfile = checkedProfile(url.searchParams.get('commitProfile'), 'commitProfile', field);
  const version = url.searchParams.get('version');
  if (version !== null && !ATTRIBUTE.test(version)) {
    throw new DataSourceError(
      'config',
      `${field}: '${version}' is not an attribute name (version=): name the attribute that versions your items, such as version=version.`,
    );
  }
  const bound = url.searchParams.get('maxItemsRead');
  let maxItemsRead: number | undefined;
  if (bound !== null) {
    maxItemsRead = Number(bound);
    if (!/^\d+$/.test(bound) || maxItemsRead < 1 || maxItemsRead > MAX_READ_BOUND)
      throw new DataSourceError(
        'config',
        `${field}: maxItemsRead='${bound}' is not a count of items: write a whole number from 1 to ${MAX_READ_BOUND.toLocaleString('en-US')}, as in maxItemsRead=400000.`,
      );
  }
  const profiles = {
    ...(profile ? { profile } : {}),
    ...(commitProfile ? { commitProfile } : {}),
    ...(version ? { version } : {}),
    ...(maxItemsRead !== undefined ? { maxItemsRead: String(maxItemsRead) } : {}),
  };
  const bounded = maxItemsRead !== undefined ? { maxItemsRead } : {};
  const who = `${profile ? `, profile ${profile}` : ''}${commitProfile ? `, commits as ${commitProfile}` : ''}`;
  if (url.hostname === 'aws') {
    const region = url.pathname.replace(/^\/+|\/+$/g, '');
    if (!REGION.test(region)) {
      throw new DataSourceError(
        'config',
        `${field}: '${region || '(none)'}' is not an AWS region. Name it after aws/, as in dynamodb://aws/eu-west-1?profile=analytics.`,
      );
    }
    if (url.searchParams.has('region')) {
      throw new DataSourceError(
        'config',
        `${field}: the region is the path (dynamodb://aws/${region}); drop ?region=.`,
      );
    }
    const query = new URLSearchParams(profiles).toString();
    return {
      kind: 'aws',
      region,
      ...(profile ? { profile } : {}),
      ...(commitProfile ? { commitProfile } : {}),
      ...(version ? { versionAttribute: version } : {}),
      ...bounded,
      description: `DynamoDB ${region}${who}`,
      url: `dynamodb://aws/${region}${query ? `?${query}` : ''}`,
    };
  }
  if (!url.hostname) throw new DataSourceError('config', `${field}: no host. Use ${FORMS}.`);
  if (url.pathname && url.pathname !== '/') {
    throw new DataSourceError(
      'config',
      `${field}: a local endpoint takes no path ('${url.pathname}'). Use ${FORMS}.`,
    );
  }
  const region = url.searchParams.get('region') ?? 'us-east-1';
  if (!REGION.test(region)) {
    throw new DataSourceError(
      'config',
      `${field}: '${region}' is not an AWS region, as in ?region=us-east-1.`,
    );
  }
  const host = `${url.hostname}:${url.port || '8000'}`;
  const query = new URLSearchParams({ region, ...profiles }).toString();
  return {
    kind: 'local',
    endpoint: `http://${host}`,
    region,
    ...(profile ? { profile } : {}),
    ...(commitProfile ? { commitProfile } : {}),
    ...(version ? { versionAttribute: version } : {}),
    ...bounded,
    description: `DynamoDB at ${host} (${region}${who})`,
    url: `dynamodb://${host}?${query}`,
  };
}

function checkedProfile(value: string | null, name: string, field: string): string | undefined {
  if (value === null || value === '') return undefined;
  if (!PROFILE.test(value)) {
    throw new DataSourceError('config', `${field}: '${value}' is not an AWS profile name (${name}=).`);
  }
  return value;
}
