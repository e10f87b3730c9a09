import { createHash } from 'node:crypto';

/** The sha-256 hex of a bearer token: the store keeps this, never the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
