import { createHash, createHmac, randomUUID } from 'node:crypto';

/** sha256 of the empty string, hex: the body hash of requests without a body. */
const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Hex sha256 of the raw body bytes (Authentication > Signatures, component 5). */
export function sha256Hex(body: Uint8Array | undefined): string {
  if (body === undefined) return EMPTY_BODY_SHA256;
  return createHash('sha256').update(body).digest('hex');
}

/** The five-line signing string: METHOD, path with query as sent, timestamp, nonce, body hash. */
export function signingString(method: string, pathWithQuery: string, timestamp: string, nonce: string, bodySha256Hex: string): string {
  return `${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${bodySha256Hex}`;
}

/** Base64 HMAC-SHA256 of the signing string (UTF-8, node's default for text) with the signing key (44 characters). */
export function hmacBase64(signingKey: string, data: string): string {
  return createHmac('sha256', signingKey).update(data).digest('base64');
}

/** The three signature headers of one attempt. */
export interface SignatureHeaders {
  readonly 'x-timestamp': string;
  readonly 'x-nonce': string;
  readonly 'x-signature': string;
}

/**
 * Signs one attempt. A fresh nonce and timestamp per call: every retry is signed anew while the
 * body hash (computed once per call) and the idempotency key stay the same.
 */
export function signAttempt(
  signingKey: string,
  method: string,
  pathWithQuery: string,
  bodySha256Hex: string,
  nowMs: number,
): SignatureHeaders {
  // Seconds, never milliseconds: the service rejects ms with timestamp_out_of_range.
  const timestamp = String(Math.floor(nowMs / 1000));
  const nonce = randomUUID();
  const signature = hmacBase64(signingKey, signingString(method, pathWithQuery, timestamp, nonce, bodySha256Hex));
  return { 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-signature': signature };
}

/** Whether a method is signed: every method except GET and HEAD, DELETE included. */
export function isSignedMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}
