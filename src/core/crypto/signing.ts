import { randomUuid } from './random.js';

/** sha256 of the empty string, hex: the body hash of requests without a body. */
const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * The two digests a signature needs, keyed with one client's signing key. An implementation
 * answers synchronously where its runtime can (node:crypto) and with a promise where it cannot
 * (Web Crypto is asynchronous), so that the attempt loop awaits only when it has to.
 */
export interface Signer {
  /** Hex sha256 of non-empty body bytes (Authentication > Signatures, component 5). */
  sha256Hex(bytes: Uint8Array): string | Promise<string>;
  /** Base64 HMAC-SHA256 of `text` (UTF-8) with the signing key: 44 characters. */
  hmacBase64(text: string): string | Promise<string>;
}

/** Hex sha256 of the raw body bytes; the empty string's hash when there is no body. */
export function bodySha256(signer: Signer, body: Uint8Array | undefined): string | Promise<string> {
  return body === undefined || body.length === 0 ? EMPTY_BODY_SHA256 : signer.sha256Hex(body);
}

/** The five-line signing string: METHOD, path with query as sent, timestamp, nonce, body hash. */
export function signingString(method: string, pathWithQuery: string, timestamp: string, nonce: string, bodySha256Hex: string): string {
  return `${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${bodySha256Hex}`;
}

/** The three signature headers of one attempt. */
export interface SignatureHeaders {
  readonly 'x-timestamp': string;
  readonly 'x-nonce': string;
  readonly 'x-signature': string;
}

/**
 * Signs one attempt. A fresh nonce and timestamp per call: every retry is signed anew while the
 * body hash (computed once per call) and the idempotency key stay the same. Synchronous when the
 * signer is.
 */
export function signAttempt(
  signer: Signer,
  method: string,
  pathWithQuery: string,
  bodySha256Hex: string,
  nowMs: number,
): SignatureHeaders | Promise<SignatureHeaders> {
  // Seconds, never milliseconds: the service rejects ms with timestamp_out_of_range.
  const timestamp = String(Math.floor(nowMs / 1000));
  const nonce = randomUuid();
  const signature = signer.hmacBase64(signingString(method, pathWithQuery, timestamp, nonce, bodySha256Hex));
  if (typeof signature === 'string') return { 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-signature': signature };
  return signature.then((s) => ({ 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-signature': s }));
}

/** Whether a method is signed: every method except GET and HEAD, DELETE included. */
export function isSignedMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}
