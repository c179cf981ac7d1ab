import { ERROR_TYPES, type RetryClass } from '../../facts/error-codes.js';
import { MalformedResponseError } from '../errors/errors.js';
import { ApiError } from '../errors/api-error.js';
import { printable } from '../text.js';
import type { TransportResponse } from '../transport/transport.js';

const SNIPPET = 200;

/** Drops `__proto__` members: copied onto a plain object they would set its prototype. */
function dropProtoKeys(key: string, value: unknown): unknown {
  return key === '__proto__' ? undefined : value;
}

/**
 * Parses a JSON body, or returns undefined when it is not JSON. A `__proto__` member (also when
 * spelled with `\u` escapes) is dropped, so a hostile body can never give a parsed object a
 * prototype; the reviver only runs when such a member may be present, because a reviver makes
 * `JSON.parse` about 3.5 times slower on a 100-item page (it is called for every value).
 */
export function tryParseJson(text: string): unknown {
  // A byte order mark is not JSON; a transport that kept it would fail every parse.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // 'proto' (a superset of '__proto__') searches several times faster in V8 than '__proto__'.
  const mayHaveProto = json.includes('proto') || json.includes('\\u');
  try {
    return (mayHaveProto ? JSON.parse(json, dropProtoKeys) : JSON.parse(json)) as unknown;
  } catch {
    // Not JSON: the caller says what that means for its status.
  }
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What turning an error response into an error needs besides the response. */
export interface ErrorContext {
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;
  /** Masks secrets in server-chosen text (applied before anything enters the error). */
  readonly redact: (text: string) => string;
  /** Masks secrets in every string of a parsed value. */
  readonly redactValue: (value: unknown) => unknown;
  /** The retry class the pipeline applies to this code and status on this endpoint. */
  readonly retryClass: (code: string, status: number) => RetryClass;
}

/**
 * Turns a non-2xx response into the SDK's error: an {@link ApiError} for the spec's envelope in
 * either shape (`{type, code, message, request_id}` or rate-limit's `{error: {code, message,
 * retry_after}}`), or a {@link MalformedResponseError} for anything else (an HTML proxy page).
 * Every server-chosen string is redacted first: a server that echoes the request must not put a
 * token, key, signature or PIN into an error message, a log line or `util.inspect`.
 */
export function errorFromResponse(res: TransportResponse, ctx: ErrorContext): ApiError | MalformedResponseError {
  const headers = ctx.redactValue(res.headers) as Record<string, string>;
  const headerRequestId = headers['x-request-id'];
  const parsed = tryParseJson(res.body);
  if (isRecord(parsed)) {
    // The wrapped shape puts the fields under `error`; flatten it, top-level fields win.
    const raw: Record<string, unknown> = isRecord(parsed.error) ? { ...parsed.error, ...withoutKey(parsed, 'error') } : parsed;
    if (typeof raw.code === 'string' && raw.code !== '') {
      const fields = ctx.redactValue(raw) as Record<string, unknown>;
      const code = fields.code as string;
      return new ApiError({
        status: res.status,
        code,
        type: typeof fields.type === 'string' ? fields.type : typeFromStatus(res.status),
        message: typeof fields.message === 'string' ? fields.message : '',
        requestId: typeof fields.request_id === 'string' ? fields.request_id : headerRequestId,
        headers,
        idempotencyKey: ctx.idempotencyKey,
        body: fields,
        attempts: ctx.attempts,
        retryClass: ctx.retryClass(code, res.status),
      });
    }
  }
  const snippet = ctx.redact(res.body.slice(0, SNIPPET));
  return new MalformedResponseError(
    `HTTP ${res.status} with a body that is not the service's error envelope${headerRequestId ? ` [request_id ${printable(headerRequestId)}]` : ''}: ${printable(JSON.stringify(snippet))}`,
    { status: res.status, requestId: headerRequestId, snippet, idempotencyKey: ctx.idempotencyKey },
  );
}

function withoutKey(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (k !== key) out[k] = obj[k];
  return out;
}

/** The spec's type for a status (Errors > Type to HTTP status), for bodies that omit `type`. */
function typeFromStatus(status: number): string {
  for (const [type, typeStatus] of Object.entries(ERROR_TYPES)) if (typeStatus === status) return type;
  return 'api_error';
}
