import type { NodeRequestLike } from './node-types.js';
import { WebhookParseError } from './errors.js';

/** Bounds of one body read. */
export interface BodyLimits {
  /** Largest body, in bytes. */
  readonly maxBodyBytes: number;
  /** Time the whole body may take, in ms from the start of the read. */
  readonly bodyTimeoutMs: number;
}

/**
 * Reads a request body as raw bytes, refusing more than `maxBodyBytes` (checked on
 * `content-length` first, then while reading) and a body not complete within `bodyTimeoutMs`
 * (a sender trickling bytes would otherwise hold the socket for Node's 300 s default).
 *
 * @throws WebhookParseError with reason `body_too_large` or `body_timeout`.
 */
export function readBody(req: NodeRequestLike, limits: BodyLimits): Promise<Uint8Array> {
  const maxBytes = limits.maxBodyBytes;
  const tooLarge = (): WebhookParseError => new WebhookParseError('body_too_large', `The webhook body exceeds ${maxBytes} bytes.`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    const timer = setTimeout(
      () => finish(new WebhookParseError('body_timeout', `The webhook body was not complete within ${limits.bodyTimeoutMs} ms.`)),
      limits.bodyTimeoutMs,
    );
    const finish = (err: Error | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (err) {
        // Discard the rest so that the answer can still be written.
        req.resume();
        reject(err);
      } else resolve(concat(chunks, size));
    };
    const onData = (chunk: Uint8Array): void => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(undefined));
    req.once('error', (err) => finish(err));
    // 'close' before 'end' means the sender went away mid-body.
    req.once('close', () => finish(new Error('The request was closed before its body was fully read.')));
  });
}

/** The chunks as one array of `size` bytes (no `Buffer.concat`: the entry runs where Buffer is absent). */
function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === size) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
