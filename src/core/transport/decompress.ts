import type * as Zlib from 'node:zlib';
import { builtinModule } from '../crypto/builtin.js';
import { ResponseTooLargeError } from './transport.js';

type Decoder = (buf: Uint8Array, options: Zlib.ZlibOptions) => Uint8Array;

/** The decoders by `content-encoding`; `node:zlib` is taken on the first compressed body only. */
function decoders(): Readonly<Record<string, Decoder>> {
  const zlib = builtinModule<typeof Zlib>('node:zlib');
  if (zlib === undefined) return {};
  return { gzip: zlib.gunzipSync, 'x-gzip': zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync };
}

let table: Readonly<Record<string, Decoder>> | undefined;

/**
 * Decodes a compressed body (`content-encoding` gzip, deflate or br) under the size cap, for the
 * undici transport, which hands over the bytes as sent. The SDK asks for `identity`; this is for
 * servers and proxies that compress anyway. (A `fetch` decodes on its own.)
 */
export function decompress(bytes: Uint8Array, headers: Record<string, string>, status: number, limit: number): Uint8Array {
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || bytes.length === 0) return bytes;
  const decode = (table ??= decoders())[encoding];
  if (decode === undefined) return bytes;
  try {
    return decode(bytes, { maxOutputLength: limit });
  } catch (err) {
    if (err instanceof RangeError) throw new ResponseTooLargeError(status, headers, limit);
    throw err;
  }
}
