import type { EndpointDescriptor, HttpMethod } from '../../facts/endpoint.js';
import * as z from 'zod/mini';
import type { CallArgs, CallOptions, QueryValue } from '../types.js';
import { checkRawPath } from '../call/url.js';

/** A request through the same pipeline for endpoints without a typed method. */
export interface RawRequest {
  /** HTTP method. */
  readonly method: HttpMethod;
  /**
   * Path starting with `/v1/`, percent-encoded, without query (use `query`). Sent and signed
   * exactly as given, so a path a URL parser would rewrite (a `.` or `..` segment, encoded or
   * not, or a backslash) is refused with `InvalidArgumentError` before anything is sent.
   */
  readonly path: string;
  /** Query parameters, sent in this order. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** JSON body. */
  readonly body?: unknown;
  /** Member identifier for `x-on-behalf-of` (member-scoped endpoints). */
  readonly onBehalfOf?: string;
  /**
   * Send `x-idempotency-key` (generated unless `idempotencyKey` is given). Default: true for every
   * method other than GET and HEAD, so that a write retried after a timeout executes once. Pass
   * `false` only for writes the service must not see a key on; such a write is never retried
   * automatically once it may have reached the service.
   */
  readonly sendsIdempotencyKey?: boolean;
  /**
   * The former name of {@link RawRequest.sendsIdempotencyKey} (it never meant that the request is
   * idempotent, only that it carries a key); read when `sendsIdempotencyKey` is not given.
   *
   * @deprecated Use `sendsIdempotencyKey`.
   */
  readonly idempotent?: boolean;
  /** Idempotency key to send (implies `sendsIdempotencyKey`). */
  readonly idempotencyKey?: string;
  /** Top-level body fields whose values are secrets: masked if a server echoes them into an error. */
  readonly secretFields?: readonly string[];
  /** Per-call options. */
  readonly options?: Omit<CallOptions, 'idempotencyKey'>;
}

const LOOSE_RESPONSE = z.unknown();

/**
 * `client.request()`'s request as a call of the pipeline: a descriptor made for it (loose result,
 * a key on every write unless refused, never retried once a keyless write may have executed) and
 * its arguments.
 *
 * @throws InvalidArgumentError for a path a URL parser would rewrite (the client turns it into a
 * rejected call).
 */
export function rawCall<T>(req: RawRequest): { endpoint: EndpointDescriptor<T>; args: CallArgs } {
  const write = req.method !== 'GET' && req.method !== 'HEAD';
  const keyed = req.idempotencyKey !== undefined || (req.sendsIdempotencyKey ?? req.idempotent ?? write);
  const endpoint: EndpointDescriptor<T> = {
    id: 'request',
    method: req.method,
    path: checkRawPath(req.path),
    memberScoped: req.onBehalfOf !== undefined,
    sendsKey: keyed,
    journaled: false,
    outsideTable: true,
    typing: 'loose',
    response: LOOSE_RESPONSE as z.ZodMiniType<T>,
    // A keyless write retried after it may have executed could execute twice.
    ...(write && !keyed ? { retry: 'never' as const } : {}),
    ...(req.secretFields === undefined ? {} : { secretFields: req.secretFields }),
  };
  return {
    endpoint,
    args: { query: req.query, body: req.body, member: req.onBehalfOf, options: { ...req.options, idempotencyKey: req.idempotencyKey } },
  };
}
