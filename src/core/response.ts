import { ERROR_TYPES } from '../spec/error-codes.js';
import { ApiError, MalformedResponseError } from './errors.js';
import type { TransportResponse } from './transport.js';

const SNIPPET = 200;

/** Drops `__proto__` members: copied onto a plain object they would set its prototype. */
function dropProtoKeys(key: string, value: unknown): unknown {
  return key === '__proto__' ? undefined : value;
}

/**
 * Parses a JSON body, or returns undefined when it is not JSON. A `__proto__` member (also when
 * spelled with `\u` escapes) is dropped, so a hostile body can never give a parsed object a
 * prototype; the reviver only runs when such a member may be present, keeping the common path fast.
 */
export function tryParseJson(text: string): unknown {
  try {
    // 'proto' (a superset of '__proto__') searches several times faster in V8 than '__proto__'.
    const mayHaveProto = text.includes('proto') || text.includes('\\u');
    return (mayHaveProto ? JSON.parse(text, dropProtoKeys) : JSON.parse(text)) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Turns a non-2xx response into the SDK's error: an {@link ApiError} for the spec's envelope in
 * either shape (`{type, code, message, request_id}` or rate-limit's `{error: {code, message,
 * retry_after}}`), or a {@link MalformedResponseError} for anything else (an HTML proxy page).
 */
export function errorFromResponse(
  res: TransportResponse,
  idempotencyKey: string | undefined,
  attempts: number,
): ApiError | MalformedResponseError {
  const headerRequestId = res.headers['x-request-id'];
  const parsed = tryParseJson(res.body);
  if (isRecord(parsed)) {
    // The wrapped shape puts the fields under `error`; flatten it, top-level fields win.
    const fields: Record<string, unknown> = isRecord(parsed.error) ? { ...parsed.error, ...withoutKey(parsed, 'error') } : parsed;
    if (typeof fields.code === 'string' && fields.code !== '') {
      return new ApiError({
        status: res.status,
        code: fields.code,
        type: typeof fields.type === 'string' ? fields.type : typeFromStatus(res.status),
        message: typeof fields.message === 'string' ? fields.message : '',
        requestId: typeof fields.request_id === 'string' ? fields.request_id : headerRequestId,
        headers: res.headers,
        idempotencyKey,
        body: fields,
        attempts,
      });
    }
  }
  const snippet = res.body.slice(0, SNIPPET);
  return new MalformedResponseError(
    `HTTP ${res.status} with a body that is not the service's error envelope${headerRequestId ? ` [request_id ${headerRequestId}]` : ''}: ${JSON.stringify(snippet)}`,
    { status: res.status, requestId: headerRequestId, snippet, idempotencyKey },
  );
}

function withoutKey(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (k !== key) out[k] = obj[k];
  return out;
}

/** The spec's type for a status (Errors > Type to HTTP status), for bodies that omit `type`. */
const TYPE_OF_STATUS = new Map<number, string>(Object.entries(ERROR_TYPES).map(([type, status]) => [status, type]));

function typeFromStatus(status: number): string {
  return TYPE_OF_STATUS.get(status) ?? 'api_error';
}
