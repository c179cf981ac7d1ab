import type { Signer } from './signing.js';

type SubtleCrypto = typeof globalThis.crypto.subtle;
import { toBase64, toHex, utf8 } from './encoding.js';

/**
 * Signs through Web Crypto (`crypto.subtle`), the one crypto API every runtime has: workerd
 * without `nodejs_compat`, edge runtimes, browsers. Asynchronous by nature; the key is imported
 * once per client, on the first signature.
 */
export class WebCryptoSigner implements Signer {
  readonly #secret: string;
  #key: ReturnType<SubtleCrypto['importKey']> | undefined;

  constructor(signingKey: string) {
    this.#secret = signingKey;
  }

  async sha256Hex(bytes: Uint8Array): Promise<string> {
    return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes)));
  }

  async hmacBase64(text: string): Promise<string> {
    this.#key ??= globalThis.crypto.subtle.importKey('raw', utf8(this.#secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return toBase64(new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', await this.#key, utf8(text))));
  }
}
