import type { IncomingMessage } from 'node:http';
import { WebhookParseError } from './errors.js';

/**
 * Reads a request body as raw bytes, refusing more than `maxBytes` (checked on
 * `content-length` first, then while reading).
 *
 * @throws WebhookParseError with reason `body_too_large`.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = (): WebhookParseError => new WebhookParseError('body_too_large', `The webhook body exceeds ${maxBytes} bytes.`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | undefined): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      if (err) {
        // Discard the rest so that the answer can still be written.
        req.resume();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
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
