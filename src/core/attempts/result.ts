import type * as z from 'zod/mini';
import type { EndpointDescriptor } from '../../facts/endpoint.js';
import type { ReadContext } from './runner.js';
import { AcceptedButUnreadableError, ResponseValidationError } from '../errors/errors.js';
import { printable } from '../text.js';
import { tryParseJson } from './response.js';
import type { TransportResponse } from '../transport/transport.js';
import type { WithResponse } from '../types.js';

/** How much of an unreadable body an error keeps (redacted). */
const KEPT_BODY_CHARS = 4096;

/**
 * Turns a 2xx response into the call's result: the JSON body, validated against the endpoint's
 * schema when `validate` is on, with the response metadata (request id, key, replay flag).
 *
 * A 2xx is success for the money: when its body cannot be read, the error says that the service
 * accepted the call ({@link AcceptedButUnreadableError}), with the key, the status, the request id
 * and the body (bounded, secrets masked), so that nobody retries it with a new key.
 */
export function readResult<T>(
  endpoint: EndpointDescriptor<T>,
  response: TransportResponse,
  context: ReadContext,
  validate: boolean,
): WithResponse<T> {
  const { state } = context;
  const json = response.body === '' ? null : tryParseJson(response.body);
  // Built only when the call fails: masking the body costs more than the rest of a success path.
  const accepted = () => ({
    status: response.status,
    requestId: state.requestId,
    body: context.redact(response.body.slice(0, KEPT_BODY_CHARS)),
  });
  const where = () =>
    `The call was accepted (HTTP ${response.status}${state.requestId === undefined ? '' : `, request_id ${printable(state.requestId)}`})`;
  if (json === undefined) throw new AcceptedButUnreadableError(`${where()}, but its body is not JSON.`, accepted());
  let data = json as T;
  if (validate) {
    const parsed = endpoint.response.safeParse(json, SCHEMA_PARSE_CONTEXT);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
      const summary = issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      throw new ResponseValidationError(`${where()}, but the response of ${endpoint.id} does not match the documented shape: ${summary}`, {
        ...accepted(),
        parsed: json,
        issues,
      });
    }
    data = parsed.data;
  }
  return {
    data,
    response: {
      requestId: state.requestId,
      status: response.status,
      headers: response.headers,
      idempotencyKey: state.idempotencyKey,
      replayed: response.headers['x-idempotent-replay'] === 'true',
      attempts: state.attempts,
    },
  };
}

/** What a value is, in the words of an issue (`null`, `array`, else its `typeof`). */
function received(input: unknown): string {
  if (input === null) return 'null';
  return Array.isArray(input) ? 'array' : typeof input;
}

/**
 * Issue text for the schemas (on `zod/mini`, which ships no messages): readable, and the same
 * whether or not something else in the process loaded zod's locales.
 */
function issueText(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected}, received ${received(issue.input)}`;
    case 'invalid_union':
      return 'Invalid input: matches none of the documented shapes';
    case 'invalid_value':
      return `Invalid input: expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'too_small':
      return `Too small: expected ${issue.origin} of at least ${String(issue.minimum)}`;
    default:
      return undefined;
  }
}

/** How the SDK's schemas parse (responses, webhook events): with {@link issueText}'s messages. */
export const SCHEMA_PARSE_CONTEXT: z.core.ParseContext<z.core.$ZodIssue> = { error: issueText };
