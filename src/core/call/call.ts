import { checkCallOptions } from './call-options.js';
import type { EndpointDescriptor } from '../../facts/endpoint.js';
import type { CallBucket } from '../limits/limiter.js';
import { bucketOf, subLimitOf } from '../../facts/rate-limits.js';
import { randomUuid } from '../crypto/random.js';
import { InvalidArgumentError } from '../errors/errors.js';
import { checkMemberId } from './member-id.js';
import { isSignedMethod } from '../crypto/signing.js';
import { hasControlChars } from '../text.js';
import type { CallArgs, CallOptions } from '../types.js';
import { buildQuery, fillPath } from './url.js';

/** One call, prepared once: the exact path and body bytes that every attempt signs and sends. */
export interface PreparedCall {
  /** The endpoint's id, e.g. `member.withdrawals.create` (what traces, logs, metrics and journal rows call it). */
  readonly name: string;
  /** The route template, e.g. `/v1/withdrawals/{id}/confirm`. */
  readonly route: string;
  readonly method: string;
  /** Path with query, exactly as signed and sent (base path included). */
  readonly path: string;
  readonly body: Uint8Array | undefined;
  /** Signed (every method but GET and HEAD, the token exchange excepted): the attempt loop hashes `body` once per call. */
  readonly signed: boolean;
  /** The key every attempt sends, when the call takes one. */
  readonly idempotencyKey: string | undefined;
  /** `x-on-behalf-of`, when the call acts for a member. */
  readonly member: string | undefined;
  readonly bucket: CallBucket;
  /** The spec's sub-limit inside the bucket (QR quotes per member, bank search), if any. */
  readonly subKey: string | undefined;
  readonly extraHeaders: Readonly<Record<string, string>> | undefined;
  readonly options: CallOptions | undefined;
  /** Values of the body's secret fields (a PIN), masked wherever a server echoes them. */
  readonly secrets: readonly string[];
  /**
   * When the call was made (`performance.now()`), when something ran before its attempts (the
   * journal's record): its deadline counts from here. Otherwise from the start of its attempts.
   */
  readonly startedAt?: number;
  /** The trace context the call's span is a child of (a token exchange: the call that caused it). */
  readonly traceParent?: unknown;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const PROTECTED_HEADERS = new Set([
  'x-auth-token',
  'authorization',
  'x-timestamp',
  'x-nonce',
  'x-signature',
  'x-idempotency-key',
  'x-on-behalf-of',
  'x-client-id',
  'x-api-key',
  'content-type',
  'content-length',
  'host',
]);

/** Validates a caller's idempotency key (shape only, as the service does) or makes a v4 one. */
function resolveIdempotencyKey(given: string | undefined): string {
  if (given === undefined) return randomUuid();
  if (typeof given !== 'string' || !UUID_SHAPE.test(given)) {
    throw new InvalidArgumentError('idempotencyKey', 'must be UUID-shaped (8-4-4-4-12 hex digits).');
  }
  return given;
}

/**
 * Whether the spec gives the endpoint no idempotency key: a read (GET, HEAD: the key is for
 * writes that create an object or move funds), or a write it says takes none (`takesNoKey`).
 */
function takesNoKey(endpoint: EndpointDescriptor<unknown>): boolean {
  return endpoint.takesNoKey === true || endpoint.method === 'GET' || endpoint.method === 'HEAD';
}

/**
 * The key every attempt of the call sends: where the endpoint takes one, the caller's (shape
 * checked) or a new v4 one; on a keyless write whose requirement the spec does not show, the
 * caller's own key as given (a raw `request()` that names one is such a call, made keyed); none
 * otherwise. A caller's key where the spec gives the endpoint none is refused.
 */
function keyOf(endpoint: EndpointDescriptor<unknown>, given: string | undefined): string | undefined {
  if (endpoint.sendsKey) return resolveIdempotencyKey(given);
  if (given === undefined) return undefined;
  if (takesNoKey(endpoint)) {
    throw new InvalidArgumentError(
      'idempotencyKey',
      `${endpoint.method} ${endpoint.path} takes no idempotency key (the spec gives it none); remove the option. Nothing was sent.`,
    );
  }
  return resolveIdempotencyKey(given);
}

function checkExtraHeaders(headers: Readonly<Record<string, string>> | undefined): void {
  if (headers === undefined) return;
  for (const name of Object.keys(headers)) {
    if (PROTECTED_HEADERS.has(name.toLowerCase()))
      throw new InvalidArgumentError('headers', `${name} is set by the SDK and cannot be overridden.`);
    if (hasControlChars(headers[name]!)) throw new InvalidArgumentError('headers', `${name} must not contain control characters.`);
  }
}

/**
 * The values of a body's secret top-level fields as they go over the wire: a string, or a number's
 * digits (a PIN sent as a number is as secret). The redactor ignores values too short to mask.
 */
function secretValues(fields: readonly string[] | undefined, body: unknown): string[] {
  if (fields === undefined) return [];
  // Object(): any body (null, a string, an array) reads as an object whose fields may be absent.
  const record = Object(body) as Record<string, unknown>;
  return fields.flatMap((f) => {
    const value = record[f];
    return typeof value === 'string' || typeof value === 'number' ? [String(value)] : [];
  });
}

/** Serialises a JSON body once, to the bytes that are hashed, signed and sent. */
function serialise(body: unknown): Uint8Array {
  const json = JSON.stringify(body) as string | undefined;
  if (json === undefined) throw new InvalidArgumentError('body', 'must be JSON-serialisable.');
  return new TextEncoder().encode(json);
}

/**
 * Validates the arguments and builds what every attempt reuses: the path and body bytes once
 * (these exact bytes are hashed, signed and sent), the idempotency key once, the bucket.
 * Throws `InvalidArgumentError` before anything is sent.
 */
export function prepareCall(endpoint: EndpointDescriptor<unknown>, args: CallArgs, basePath: string, bucket?: CallBucket): PreparedCall {
  const options = checkCallOptions(args.options);
  // Only a member-scoped endpoint carries a member: the member view and `request({ onBehalfOf })` make theirs so.
  // A member-optional one goes without `x-on-behalf-of` when none is given (its merchant-level form).
  const member =
    endpoint.memberScoped && !(endpoint.memberOptional === true && args.member === undefined)
      ? checkMemberId(args.member, 'member')
      : undefined;
  const filled = fillPath(endpoint.path, args.pathParams) + buildQuery(args.query);
  const body = args.body === undefined ? undefined : serialise(args.body);
  // Every method but GET and HEAD, except the token exchange (its descriptor says `unsigned`).
  const signed = endpoint.unsigned !== true && isSignedMethod(endpoint.method);
  checkExtraHeaders(options?.headers);
  const idempotencyKey = keyOf(endpoint, options?.idempotencyKey);
  return {
    // The endpoint's one name, as its journal rows hold it: a search of logs, spans and rows finds all three.
    name: endpoint.id,
    route: endpoint.path,
    method: endpoint.method,
    path: basePath + filled,
    body,
    signed,
    idempotencyKey,
    member,
    bucket: bucket ?? bucketOf(endpoint.method, filled),
    subKey: subLimitOf(endpoint.method, filled, member),
    extraHeaders: options?.headers,
    options,
    secrets: secretValues(endpoint.secretFields, args.body),
  };
}
