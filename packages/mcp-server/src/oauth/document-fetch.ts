// Fetching a client ID metadata document on behalf of whoever sent an authorization request: any
// web page can send one, so the fetch must not become a way into the user's own network (SSRF).
// Only https, only to public addresses (checked on the address actually connected to, so a DNS
// answer cannot swap in a private one after the check), no redirects, bounded in size, time, and
// how often one host is asked.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import type { DocumentFetch } from './clients.ts';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

// IPv4-mapped and IPv4-compatible IPv6 addresses carry an IPv4 address: never a document host.
// Kept apart: BlockList checks IPv4 addresses against these too (as their mapped form).
const EMBEDS_IPV4 = new BlockList();
EMBEDS_IPV4.addSubnet('::ffff:0:0', 96, 'ipv6');
EMBEDS_IPV4.addSubnet('::', 96, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether an IP address is on the public internet (not private, loopback, link-local, reserved…). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && EMBEDS_IPV4.check(address, 'ipv6')) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface GuardedFetchOptions {
  /** Development mode the user turned on: documents may also come from this machine (loopback). */
  allowLoopback?: boolean;
}

function allowed(address: string, options: GuardedFetchOptions): boolean {
  if (isPublicAddress(address)) return true;
  const family = isIP(address);
  return (
    options.allowLoopback === true && family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6')
  );
}

function refusedAddress(host: string, address: string): Error {
  return new Error(
    `${host} is at ${address}, which is not a public address; client metadata documents are fetched from the internet only`,
  );
}

/**
 * The default DocumentFetch: a GET over https to a public address, never following a redirect
 * (the caller refuses anything but 200). Errors say what was refused, not what a private host
 * answered: an address is checked before any connection is made.
 */
export function guardedDocumentFetch(options: GuardedFetchOptions = {}): DocumentFetch {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== 'https:') {
        reject(new Error(`only https documents are fetched, not ${target.protocol}`));
        return;
      }
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (isIP(literal) !== 0 && !allowed(literal, options)) {
        reject(refusedAddress(target.hostname, literal));
        return;
      }
      const req = request(
        target,
        {
          method: 'GET',
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          ...(init.signal ? { signal: init.signal } : {}),
          // Checked on what the connection will use, after DNS: no window for a rebinding answer.
          lookup: (hostname, lookupOptions, callback) => {
            dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
              if (error) return callback(error, '', 0);
              const refused = addresses.find((entry) => !allowed(entry.address, options));
              if (refused) return callback(refusedAddress(hostname, refused.address), '', 0);
              if ((lookupOptions as { all?: boolean }).all)
                return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
              callback(null, addresses[0]!.address, addresses[0]!.family);
            });
          },
        },
        (response) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') headers.set(name, value);
            else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
          }
          const status = response.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : (Readable.toWeb(response) as ReadableStream);
          resolve(new Response(body, { status, headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
}

/**
 * How often documents may be fetched: per host a few a minute, and a few at once overall, so a
 * page that fires authorization requests cannot make the app a crawler.
 */
export function createDocumentFetchLimits(options: { perHostPerMinute?: number; atOnce?: number } = {}) {
  const perHost = options.perHostPerMinute ?? 10;
  const atOnce = options.atOnce ?? 4;
  const recent = new Map<string, number[]>();
  let running = 0;
  return {
    async run<T>(url: string, fetchIt: () => Promise<T>): Promise<T> {
      const host = new URL(url).host;
      const now = Date.now();
      const times = (recent.get(host) ?? []).filter((at) => at > now - 60_000);
      if (times.length >= perHost) {
        throw new OAuthError(
          OAuthErrorCode.TemporarilyUnavailable,
          `Client metadata documents were fetched from ${host} ${times.length} times in the last minute; try again in a minute.`,
        );
      }
      if (running >= atOnce) {
        throw new OAuthError(
          OAuthErrorCode.TemporarilyUnavailable,
          `${atOnce} client metadata documents are being fetched already; try again in a moment.`,
        );
      }
      times.push(now);
      recent.set(host, times);
      if (recent.size > 1000) recent.delete(recent.keys().next().value as string);
      running += 1;
      try {
        return await fetchIt();
      } finally {
        running -= 1;
      }
    },
  };
}
