/**
 * The document's shared components that do not come from the SDK's schemas: the header and list
 * parameters, the response headers and the security schemes (`document.ts` assembles them).
 */
import type { JsonSchema } from './type-schema.js';

/** `components.parameters` (those no operation references are left out by the caller). */
export function componentParameters(): Record<string, unknown> {
  const header = (name: string, description: string, schema: JsonSchema, required = true) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  return {
    // "missing or blank after trimming" answers `member_context_required`: at least one non-space.
    XOnBehalfOf: header('x-on-behalf-of', 'The member acted for: its `external_member_id` or `mem_<uuid>`; not blank.', {
      type: 'string',
      pattern: '\\S',
    }),
    XOnBehalfOfOptional: header(
      'x-on-behalf-of',
      'The member acted for (`external_member_id` or `mem_<uuid>`); optional on this endpoint, not blank when sent.',
      { type: 'string', pattern: '\\S' },
      false,
    ),
    XIdempotencyKey: header(
      'x-idempotency-key',
      'A UUID (8-4-4-4-12 hex), new per operation and reused by every retry of it. Window: 24 hours.',
      { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
    ),
    // Sent by the SDK where the spec shows no requirement (the quotes): declared, not required.
    XIdempotencyKeyOptional: header(
      'x-idempotency-key',
      'A UUID (8-4-4-4-12 hex), new per operation and reused by every retry of it. The SDK sends one; whether the service requires it is not shown by the specification.',
      { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
      false,
    ),
    XClientId: header('x-client-id', 'The client identifier issued with the API key.', { type: 'string' }),
    XApiKey: header('x-api-key', 'The api key (never the signing key). Missing, empty and wrong credentials answer the same 401.', {
      type: 'string',
    }),
    Limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size (default 20, maximum 100; a minimum is not shown by the specification). Not a cap on the total.',
      schema: { type: 'integer', maximum: 100, default: 20 },
    },
    Cursor: {
      name: 'cursor',
      in: 'query',
      required: false,
      description: "The previous page's `next_cursor` (opaque). An undecodable or expired cursor returns the first page.",
      schema: { type: 'string' },
    },
  };
}

/** `components.headers`. */
export function componentHeaders(): Record<string, unknown> {
  return {
    XRequestId: { description: 'Identifies the request; error bodies repeat it as `request_id`.', schema: { type: 'string' } },
    XIdempotentReplay: {
      description: '`true` when the answer replays the first outcome stored under the idempotency key.',
      schema: { type: 'string', enum: ['true'] },
    },
    RetryAfter: { description: 'Seconds to wait before calling this bucket again.', schema: { type: 'integer', minimum: 0 } },
  };
}

/** `components.securitySchemes`. */
export function securitySchemes(): Record<string, unknown> {
  const tokenNote = 'The token from `POST /v1/connect/token` (valid 30 minutes, no refresh flow).';
  return {
    authToken: { type: 'apiKey', in: 'header', name: 'x-auth-token', description: `\`Bearer <token>\`. ${tokenNote}` },
    bearerAuth: { type: 'http', scheme: 'bearer', description: `\`authorization: Bearer <token>\`, also accepted. ${tokenNote}` },
    clientId: { type: 'apiKey', in: 'header', name: 'x-client-id', description: 'Client identifier, for the token exchange only.' },
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'API key, for the token exchange only (never used for signing).',
    },
    signatureTimestamp: {
      type: 'apiKey',
      in: 'header',
      name: 'x-timestamp',
      description:
        'Signature header: Unix seconds (not milliseconds), within 300 seconds of the service clock. Set per request by your signing hook.',
    },
    signatureNonce: {
      type: 'apiKey',
      in: 'header',
      name: 'x-nonce',
      description:
        'Signature header: new for every request, retries included; never reused within 5 minutes. Set per request by your signing hook.',
    },
    signature: {
      type: 'apiKey',
      in: 'header',
      name: 'x-signature',
      description:
        'Signature header: base64 HMAC-SHA256 with the signing key over METHOD, path with query, x-timestamp, x-nonce and the hex sha256 of the body, joined by newlines (`x-signing`). Set per request by your signing hook.',
    },
  };
}
