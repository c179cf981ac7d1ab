import { createHash, createHmac } from 'node:crypto';
import { safeEqual } from './auth.js';
import { fail } from './errors.js';

/** Timestamp tolerance: ±300 seconds of the service clock. */
const TIMESTAMP_TOLERANCE_S = 300;
/** Nonce reuse prohibition: 5 minutes. */
const NONCE_WINDOW_MS = 5 * 60 * 1000;

/**
 * Nonces seen per merchant and environment (the caller prefixes each nonce with its
 * environment), remembered for the 5-minute window on the signature clock.
 */
export class NonceStore {
  private readonly seen = new Map<string, number>();

  /** True when `nonce` is still inside its window. */
  has(nonce: string, now: number): boolean {
    const until = this.seen.get(nonce);
    return until !== undefined && until > now;
  }

  /** Consumes `nonce` until `now + 5 min`, pruning expired entries. */
  consume(nonce: string, now: number): void {
    for (const [n, until] of this.seen) if (until <= now) this.seen.delete(n);
    this.seen.set(nonce, now + NONCE_WINDOW_MS);
  }
}

/** What signature verification reads from a request. */
export interface SignedRequest {
  method: string;
  /** Path with its query exactly as received. */
  pathWithQuery: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * Verifies a write's signature, independently written from the client's signer (spec:
 * Authentication > Signatures). Order: headers present and timestamp numeric
 * (`invalid_signature`), timestamp within ±300 s (`timestamp_out_of_range`), HMAC
 * (`invalid_signature`), then the nonce (`nonce_reused`), which is consumed only once the
 * signature has verified. `nowMs` is the signature clock (real time plus any explicit skew).
 */
export function verifySignature(req: SignedRequest, signingKey: string, nonces: NonceStore, nowMs: number, namespace = 'sandbox'): void {
  const ts = req.headers['x-timestamp'];
  const nonce = req.headers['x-nonce'];
  const signature = req.headers['x-signature'];
  if (ts === undefined || nonce === undefined || signature === undefined || ts === '' || nonce === '' || signature === '') {
    fail('invalid_signature', 'x-timestamp, x-nonce and x-signature are required on writes.');
  }
  if (!/^\d+$/.test(ts)) fail('invalid_signature', 'x-timestamp must be Unix seconds.');
  if (Math.abs(Number(ts) - nowMs / 1000) > TIMESTAMP_TOLERANCE_S) {
    fail('timestamp_out_of_range', 'x-timestamp is more than 300 seconds from the service clock.');
  }
  const bodyHash = createHash('sha256').update(req.body).digest('hex');
  const signingString = [req.method.toUpperCase(), req.pathWithQuery, ts, nonce, bodyHash].join('\n');
  const expected = createHmac('sha256', signingKey).update(signingString, 'utf8').digest('base64');
  if (!safeEqual(signature, expected)) fail('invalid_signature', 'The request signature does not match.');
  const seen = `${namespace}:${nonce}`;
  if (nonces.has(seen, nowMs)) fail('nonce_reused', 'x-nonce was already used within 5 minutes.');
  nonces.consume(seen, nowMs);
}
