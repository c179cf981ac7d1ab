import type { EndpointDescriptor } from '../../facts/endpoint.js';
import type { RetryClass } from '../../facts/error-codes.js';
import { AcceptedButUnreadableError, MerchantSdkError } from '../errors/errors.js';
import { ApiError } from '../errors/api-error.js';
import type { JournalIntent } from './intent-journal.js';
import { lockoutStopped, type RetryRules } from '../errors/retry-class.js';

/**
 * The journal's decision tables: which calls it covers, which outcome lets it forget an intent
 * (live, and in recovery), and which record recovery may send. Pure functions of the endpoint
 * table and the error; the hook and recovery act on them.
 */

/**
 * The calls the journal covers: those the endpoint table flags as taking a key and moving funds,
 * and those {@link neverResent} (a card activation: reported after a crash, never resent). A
 * `client.request()` call (`outsideTable`) is not covered: the SDK does not know what it does.
 */
export function journaled(endpoint: EndpointDescriptor<unknown>): boolean {
  return endpoint.sendsKey && endpoint.outsideTable !== true && (endpoint.journaled || neverResent(endpoint));
}

/**
 * Whether `recover()` must never send an intent of this endpoint again: the service counts its
 * failures against the customer (`lockout`: a resend could be one more counted failure, which
 * the key cannot stop), or its body holds a secret (`secretFields`: the PIN is never written, so
 * there is nothing to resend). Such an intent keeps no body and is reported for a state check.
 */
export function neverResent(endpoint: EndpointDescriptor<unknown>): boolean {
  return endpoint.lockout !== undefined || endpoint.secretFields !== undefined;
}

/** Classes of answers given before the service looks at the key (authentication, quota). */
const BEFORE_KEY_CLASSES: ReadonlySet<RetryClass> = new Set(['reauth', 'fatal', 'after_wait']);
/** Codes that may come before the key too (permission, route, member lookup). */
const BEFORE_KEY_CODES: ReadonlySet<string> = new Set([
  'insufficient_scope',
  'ip_not_allowed',
  'merchant_disabled',
  'member_not_found',
  'member_context_required',
  'not_found',
]);
/**
 * 400 codes about the request's headers or context rather than its operation: the service gives
 * them before it reads the key (a missing or malformed key, no member, the wrong environment).
 */
const HEADER_CODES: ReadonlySet<string> = new Set([
  'idempotency_key_required',
  'idempotency_key_invalid',
  'member_context_required',
  'environment_mismatch',
]);

/** Whether `err` is the service's answer to the call's last attempt (same status and request id), not a token exchange's. */
function ownAnswer(err: MerchantSdkError): err is ApiError {
  const { call } = err;
  return err instanceof ApiError && call !== undefined && err.status === call.status && err.headers['x-request-id'] === call.requestId;
}

/**
 * Whether a live call's failure lets the journal forget its intent, rather than leave it for
 * `recover()`: nothing left the client; a 2xx arrived (the money moved, only the body was
 * unreadable); or the service's own answer to this call is final for its key: any answer but a
 * `same_key` one (5xx, 409 in progress, an unknown code). An answer the service may give before
 * it looks at the key (401, 403, 429, route or member lookup) is final only when it answered the
 * call's single attempt: after an earlier, ambiguous attempt it says nothing of that one.
 *
 * Answers that are final without being stored under the key (a 401, `service_unavailable` on
 * conversions) settle too: the caller is told the operation did not run, and may act on that with
 * a new key; a recovery sending it again later would run it behind the caller's back. Which is
 * why the hook must know the intent is gone before it says so ({@link storedUnderKey} tells which
 * of them a resend would only replay).
 *
 * On an endpoint with a `lockout` (card activation), the answers its rules stop only because a
 * resend could count again (a 500, a 409 in progress, an unknown code: `retryClass` `never` there)
 * leave the outcome unknown, as an `OutcomeUnknownError` does: the intent stays open, and
 * `recover()` reports it for a check of the card without sending it.
 */
export function settles(err: unknown, rules: RetryRules = {}): boolean {
  if (!(err instanceof MerchantSdkError) || err.call === undefined) return false;
  const { call } = err;
  if (call.sent === 'no' || err instanceof AcceptedButUnreadableError) return true;
  if (!ownAnswer(err)) return false;
  if (err.retryClass === 'same_key' || lockoutStopped(err.code, err.status, rules)) return false;
  return call.attempts <= 1 || !(BEFORE_KEY_CLASSES.has(err.retryClass) || BEFORE_KEY_CODES.has(err.code));
}

/**
 * Whether `err` is an answer the service keeps under the call's key, so that any later send with
 * that key only gets it again and can never execute the operation: a 2xx whose body could not be
 * read (the operation ran; the same key replays it), or a 400 business failure (the spec: "the
 * same key replays that failure"), except a code the spec says is not cached under the key on
 * this endpoint (`service_unavailable` on conversions: `unstoredCodes`), a code about the
 * request's headers (answered before the key is read), a step-up (retried with the same key) and
 * an unknown code. Nothing else is: a 401, 403, 404 or 429 may come before the key is read, a
 * 409 or 5xx leaves the operation pending or unknown, and a call that never left the client
 * says nothing of the key at all.
 *
 * Recovery settles a resent intent only on a 2xx or such an answer: anything else leaves it open.
 */
export function storedUnderKey(err: unknown, endpoint: Pick<EndpointDescriptor<unknown>, 'unstoredCodes'>): boolean {
  if (!(err instanceof MerchantSdkError) || err.call === undefined) return false;
  if (err instanceof AcceptedButUnreadableError) return true;
  if (!ownAnswer(err) || err.status !== 400) return false;
  const code = err.code;
  if (HEADER_CODES.has(code) || endpoint.unstoredCodes?.includes(code) === true) return false;
  return err.retryClass === 'new_key' || err.retryClass === 'never';
}

/** The spec's key shape (8-4-4-4-12 hex): a record with another key cannot be what the SDK sent. */
const KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What keeps a record from being sent as its endpoint (undefined when nothing does): its method,
 * its path (the base path, then the endpoint's template, each parameter one segment other than
 * `.` or `..`, no query), its member (present exactly where the endpoint acts for one), its key's
 * shape and its body (JSON, or none). A record that fails this was not written by the SDK for
 * that endpoint (a hand edit, a corruption): sending it as written could sign and send another
 * operation under the endpoint's name.
 */
export function templateMismatch(intent: JournalIntent, endpoint: EndpointDescriptor<unknown>, basePath: string): string | undefined {
  if (intent.method !== endpoint.method) return `its method is not ${endpoint.method}`;
  if (!pathPattern(endpoint.path, basePath).test(intent.path)) return `its path does not match ${endpoint.path}`;
  const hasMember = intent.member !== null && intent.member.trim() !== '';
  if (intent.member !== null && !hasMember) return 'its member is blank';
  if (hasMember && !endpoint.memberScoped) return 'it names a member, and the endpoint acts for none';
  if (!hasMember && endpoint.memberScoped && endpoint.memberOptional !== true) return 'it names no member, and the endpoint acts for one';
  if (!KEY_SHAPE.test(intent.key)) return 'its idempotency key is not UUID-shaped';
  if (intent.body !== null && !isJson(intent.body)) return 'its body is not JSON';
  return undefined;
}

/** The path of an endpoint under `basePath`, as a pattern. */
function pathPattern(template: string, basePath: string): RegExp {
  const escape = (text: string): string => text.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
  const parts = template.split(/\{\w+\}/).map(escape);
  return new RegExp(`^${escape(basePath)}${parts.join('(?!\\.\\.?(?:/|$))[^/?#]+')}$`);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
