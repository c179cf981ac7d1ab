/** How the simulator writes its answers: JSON bodies, error envelopes, injected faults. */
import { ServiceError, envelope, typeOf } from './errors.js';
import type { Fault } from './faults.js';
import type { StoredResponse } from './idempotency.js';

/** The simulator's answer. */
export interface SandboxResponse {
  /** HTTP status. */
  status: number;
  /** Lowercase header names. */
  headers: Record<string, string>;
  /** Body text. */
  body: string;
  /** True when the `reset` fault fired: adapters drop the connection instead of answering. */
  reset?: boolean;
}

/** A JSON answer carrying the request id. */
export function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): StoredResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers }, body: JSON.stringify(body) };
}

/** The error envelope of a refused or failed request. */
export function errorResponse(e: ServiceError, requestId: string): StoredResponse {
  return {
    status: e.status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...e.headers },
    body: envelope(e.status, e.code, e.message, requestId, e.extra),
  };
}

/** Any failure as an answer: a ServiceError as its envelope, anything else as a 500. */
export function failureResponse(e: unknown, requestId: string): StoredResponse {
  if (e instanceof ServiceError) return errorResponse(e, requestId);
  return errorResponse(new ServiceError('api_error', 'Internal error in the sandbox.'), requestId);
}

const REASONS: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' };
const HTML_PAGE = (status: number): string => {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
};

/** The code of each injectable status, from the spec's type-to-status table. */
const STATUS_CODES = { 500: 'api_error', 502: 'upstream_error', 504: 'upstream_timeout' } as const;

/** A 429 in either envelope shape the spec shows. */
function rateLimited(f: Extract<Fault, { kind: 'rate_limited' }>, requestId: string): SandboxResponse {
  const headers = { 'content-type': 'application/json', 'x-request-id': requestId, 'retry-after': String(f.retryAfter) };
  const message = 'Rate limit exceeded.';
  const body =
    f.shape === 'wrapped'
      ? { error: { code: 'rate_limited', message, retry_after: f.retryAfter } }
      : { type: typeOf(429), code: 'rate_limited', message, request_id: requestId, retry_after: f.retryAfter };
  return { status: 429, headers, body: JSON.stringify(body) };
}

/**
 * The answer a `garble` fault sends for a request that ran: a 2xx keeps its headers (request id,
 * replay flag) and loses its body; any other status goes out unchanged.
 */
export function garbled(f: Extract<Fault, { kind: 'garble' }>, outcome: SandboxResponse): SandboxResponse {
  if (outcome.status < 200 || outcome.status > 299) return outcome;
  return { ...outcome, status: f.status ?? outcome.status, body: f.body ?? '' };
}

/** The response an injected fault produces (never for `delay`, `hang` or `garble`). */
export function faultResponse(f: Fault, requestId: string): SandboxResponse {
  switch (f.kind) {
    case 'status': {
      const code = f.code ?? STATUS_CODES[f.status];
      return errorResponse(new ServiceError(code, 'Injected failure.', { status: f.status }), requestId);
    }
    case 'in_progress':
      return errorResponse(new ServiceError('idempotency_in_progress', 'The first request with this key is still processing.'), requestId);
    case 'rate_limited':
      return rateLimited(f, requestId);
    case 'html':
      return { status: f.status, headers: { 'content-type': 'text/html' }, body: HTML_PAGE(f.status) };
    case 'reset':
      return { status: 0, headers: {}, body: '', reset: true };
    case 'unknown_code': {
      const status = f.status ?? 500;
      return errorResponse(new ServiceError(f.code ?? 'brand_new_code', 'Something new happened.', { status }), requestId);
    }
    case 'timestamp_skew':
      return errorResponse(
        new ServiceError('timestamp_out_of_range', 'x-timestamp is more than 300 seconds from the service clock.'),
        requestId,
      );
    case 'delay':
    case 'hang':
    case 'garble':
      throw new Error(`${f.kind} is not a response`);
  }
}
