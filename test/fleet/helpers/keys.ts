/** The Redis key names the fleet stores use, computed independently of src/redis for the assertions. */
import { createHash } from 'node:crypto';

const digest = (value: string, hex: number): string => createHash('sha256').update(value).digest('hex').slice(0, hex);

/** The token, renewal lock and renewal counter keys of the client key `clientKey`. */
export function tokenKeys(clientKey: string, prefix = 'merchant-stablecoin'): { token: string; lock: string; renewals: string } {
  const token = `${prefix}:token:{${digest(clientKey, 32)}}`;
  return { token, lock: `${token}:lock`, renewals: `${token}:renewals` };
}

/** The sorted set of one account's bucket. */
export function bucketKey(account: string, bucket: string, prefix = 'merchant-stablecoin'): string {
  return `${prefix}:rate:{${digest(account, 16)}}:${bucket}`;
}

/** A shared token's key, whatever the client key it digests. */
export const TOKEN_KEY = /^merchant-stablecoin:token:\{[0-9a-f]{32}\}$/;
