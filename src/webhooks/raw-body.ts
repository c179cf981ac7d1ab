import { WebhookParseError } from './errors.js';

const RAW_BODY_HINT =
  'pass the raw body, not req.body parsed by a JSON middleware: the exact bytes received are needed ' +
  "for signature verification (with Express, mount express.raw({ type: 'application/json' }) on the webhook route; " +
  'with node:http, use the handler itself as the request listener).';

/**
 * The exact bytes of a delivery. Strings are encoded as UTF-8; a `Buffer` or `Uint8Array` is
 * used as is. Anything else (an object parsed by a JSON middleware, `undefined`) is refused
 * with a message naming the usual cause.
 *
 * @throws WebhookParseError with reason `raw_body_required`.
 */
export function toRawBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array)
    return Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const what =
    rawBody === undefined || rawBody === null
      ? `no body (${String(rawBody)})`
      : typeof rawBody === 'object'
        ? `an object (${rawBody.constructor?.name ?? 'no prototype'})`
        : `a ${typeof rawBody}`;
  throw new WebhookParseError('raw_body_required', `The webhook body was ${what}, not a string or bytes: ${RAW_BODY_HINT}`);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes raw bytes as strict UTF-8 (JSON's encoding).
 *
 * @throws WebhookParseError with reason `invalid_utf8`.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new WebhookParseError('invalid_utf8', 'The webhook body is not valid UTF-8.');
  }
}
