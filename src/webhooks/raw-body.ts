import { WebhookParseError } from './errors.js';

const RAW_BODY_HINT =
  'pass the raw body, not req.body parsed by a JSON middleware: the exact bytes received are needed ' +
  "for signature verification (with Express, mount express.raw({ type: 'application/json' }) on the webhook route; " +
  'with node:http, use the handler itself as the request listener).';

// TextEncoder and Uint8Array rather than Buffer: workerd without nodejs_compat and browsers lack Buffer.
const encoder = new TextEncoder();

interface BufferConstructorLike {
  from(bytes: ArrayBufferLike, byteOffset: number, length: number): Uint8Array;
  isBuffer(value: unknown): boolean;
}
const RuntimeBuffer = (globalThis as { Buffer?: BufferConstructorLike }).Buffer;

/**
 * Where the runtime has `Buffer` (Node, Bun), the bytes as a Buffer view (no copy): verify hooks
 * written for Node (`rawBody.toString('utf8')`) keep working, where a plain Uint8Array's
 * `toString` would silently give comma-separated numbers.
 */
function runtimeBytes(bytes: Uint8Array): Uint8Array {
  return RuntimeBuffer === undefined || RuntimeBuffer.isBuffer(bytes)
    ? bytes
    : RuntimeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The exact bytes of a delivery: strings encoded as UTF-8, a `Uint8Array` used as is (a Buffer
 * view of it where the runtime has Buffer). Anything else (an object parsed by a JSON middleware, `undefined`) is
 * refused with a message naming the usual cause.
 *
 * @throws WebhookParseError with reason `raw_body_required`.
 */
export function toRawBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return runtimeBytes(encoder.encode(rawBody));
  if (rawBody instanceof Uint8Array) return runtimeBytes(rawBody);
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
