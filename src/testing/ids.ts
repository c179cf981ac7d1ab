import { randomBytes, randomUUID } from 'node:crypto';

/** A random RFC 4122 v4 UUID, as the service uses inside `wdr_`, `mem_`, `rmt_`... ids. */
export function uuid(): string {
  return randomUUID();
}

/** Random lowercase hex of `bytes` bytes (`evt_<hex>`, `req_<hex>`, tokens). */
export function hex(bytes = 12): string {
  return randomBytes(bytes).toString('hex');
}

/** A fresh `X-Request-Id` value. */
export function requestId(): string {
  return `req_${hex(12)}`;
}

/** ISO 8601 with milliseconds, from sandbox-clock milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
