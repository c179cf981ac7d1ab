/**
 * Signature diagnosis: why a write was refused with `invalid_signature`, `timestamp_out_of_range`
 * or `nonce_reused`. The sandbox records what it received and the exact string-to-sign it
 * expected, and names the first component that differs. To find what the caller signed, it tries
 * the plausible variants of each component (a path without its query, a millisecond timestamp, the
 * hash of an empty body, a hex HMAC, the api key as HMAC key...) against the received signature.
 *
 * The signing key never leaves this module: a diagnosis holds only what the caller sent and
 * what the sandbox derived from it.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from './errors.js';
import type { RecordedRequest } from './service-deps.js';
import { variantSearch, type SignedParts } from './diagnosis-variants.js';
import type { SignatureDiagnosis } from './diagnosis-types.js';

/** What a diagnosis reads from the pipeline: the request, the keys, the log. */
export interface DiagnosisInput {
  readonly method: string;
  readonly pathWithQuery: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  readonly requestId: string;
  readonly now: number;
  readonly keys: { readonly signingKey: string; readonly apiKey: string };
  readonly requests: readonly RecordedRequest[];
}

const DIAGNOSED = new Set(['invalid_signature', 'timestamp_out_of_range', 'nonce_reused']);

const headerOrNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

function receivedOf(input: DiagnosisInput): SignatureDiagnosis['received'] {
  return {
    method: input.method,
    path: input.pathWithQuery,
    timestamp: headerOrNull(input.headers['x-timestamp']),
    nonce: headerOrNull(input.headers['x-nonce']),
    bodySha256: createHash('sha256').update(input.body).digest('hex'),
    signature: headerOrNull(input.headers['x-signature']),
  };
}

function missingHeaders(r: SignatureDiagnosis['received']): string | undefined {
  const missing = [
    ['x-timestamp', r.timestamp],
    ['x-nonce', r.nonce],
    ['x-signature', r.signature],
  ].filter(([, v]) => v === null);
  if (missing.length === 0) return undefined;
  return `headers: ${missing.map(([h]) => h).join(', ')} missing; x-timestamp, x-nonce and x-signature are required on every method but GET and HEAD`;
}

function timestampMessage(ts: string, nowMs: number): string {
  const nowS = Math.floor(nowMs / 1000);
  const diff = Number(ts) - nowS;
  const side = diff > 0 ? 'ahead of' : 'behind';
  const ms = Number(ts) > 1e11 ? '; it looks like milliseconds: send Unix seconds' : '';
  return `timestamp: x-timestamp ${ts} is ${Math.abs(diff)} s ${side} the sandbox's signature clock (${nowS}); the window is ±300 s${ms}`;
}

function nonceMessage(input: DiagnosisInput, nonce: string): string {
  const earlier = [...input.requests].reverse().find((r) => r.requestId !== input.requestId && r.headers['x-nonce'] === nonce);
  const by = earlier ? ` by request ${earlier.requestId} (${earlier.method} ${earlier.path})` : '';
  return `nonce: x-nonce ${nonce} was already used${by} within 5 minutes; send a new nonce on every request, retries included`;
}

/** The diagnosis of one refused request, from the code it was refused with. */
function diagnose(input: DiagnosisInput, code: SignatureDiagnosis['code']): SignatureDiagnosis {
  const received = receivedOf(input);
  const parts: SignedParts = {
    method: input.method.toUpperCase(),
    path: input.pathWithQuery,
    timestamp: received.timestamp ?? '',
    nonce: received.nonce ?? '',
    body: input.body,
    host: input.headers['host'],
  };
  const expectedStringToSign = [parts.method, parts.path, parts.timestamp, parts.nonce, received.bodySha256].join('\n');
  const base = { code, received, expectedStringToSign };
  const missing = missingHeaders(received);
  if (missing !== undefined) return { ...base, component: 'headers', message: missing };
  if (!/^\d+$/.test(parts.timestamp)) {
    return { ...base, component: 'timestamp', message: `timestamp: x-timestamp ${parts.timestamp} is not Unix seconds (digits only)` };
  }
  if (code === 'timestamp_out_of_range') return { ...base, component: 'timestamp', message: timestampMessage(parts.timestamp, input.now) };
  if (code === 'nonce_reused') return { ...base, component: 'nonce', message: nonceMessage(input, parts.nonce) };
  const found = variantSearch(parts, received.signature ?? '', input.keys);
  return { ...base, ...found };
}

/** Where the full diagnosis of a request is served. */
function diagnosisPath(requestId: string): string {
  return `/__sandbox/requests/${requestId}`;
}

/**
 * Runs `verify`; a refusal it throws with one of the three signature codes is diagnosed, the
 * diagnosis is attached to the request's log entry, and the error is thrown again with a message
 * that names the difference and points to the full diagnosis.
 */
export function withDiagnosis(input: DiagnosisInput, verify: () => void): void {
  try {
    verify();
  } catch (e) {
    if (!(e instanceof ServiceError) || !DIAGNOSED.has(e.code)) throw e;
    const diagnosis = diagnose(input, e.code as SignatureDiagnosis['code']);
    const entry = [...input.requests].reverse().find((r) => r.requestId === input.requestId);
    if (entry) entry.diagnosis = diagnosis;
    const message = `${e.message} ${diagnosis.message}. Diagnosis: GET ${diagnosisPath(input.requestId)}`;
    throw new ServiceError(e.code, message, { status: e.status, extra: e.extra, headers: e.headers, storable: e.storable });
  }
}
