import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NodeCryptoSigner } from '../../src/core/crypto/node-signer.js';
import { createSigner } from '../../src/core/crypto/signer.js';
import { WebCryptoSigner } from '../../src/core/crypto/web-signer.js';
import { bodySha256, signAttempt, signingString, type Signer } from '../../src/core/crypto/signing.js';

interface Vector {
  method: string;
  path_with_query: string;
  x_timestamp: string;
  x_nonce: string;
  body_utf8: string;
  body_sha256_hex: string;
  signing_string: string;
  x_signature: string;
}

// Known answers computed with the openssl command line outside this codebase, from the spec's recipe
// (a fixture of the project: the inputs and the expected signatures are facts, not our output).
const vectors = JSON.parse(readFileSync(new URL('../fixtures/signing-vectors.json', import.meta.url), 'utf8')) as {
  signing_key: string;
  vectors: Vector[];
};

// Every signer the SDK may pick: node:crypto (Node, Bun, Deno) and Web Crypto (workerd, edge).
const signers: ReadonlyArray<readonly [string, (key: string) => Signer]> = [
  ['node:crypto', (key) => new NodeCryptoSigner(nodeCrypto, key)],
  ['Web Crypto', (key) => new WebCryptoSigner(key)],
];

describe('signing known-answer vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.vectors.length).toBeGreaterThanOrEqual(4);
  });
  for (const [name, make] of signers) {
    describe(name, () => {
      const signer = make(vectors.signing_key);
      for (const v of vectors.vectors) {
        it(`${v.method} ${v.path_with_query}`, async () => {
          const hash = await bodySha256(signer, new TextEncoder().encode(v.body_utf8));
          expect(hash).toBe(v.body_sha256_hex);
          const text = signingString(v.method, v.path_with_query, v.x_timestamp, v.x_nonce, hash);
          expect(text).toBe(v.signing_string);
          const sig = await signer.hmacBase64(text);
          expect(sig).toBe(v.x_signature);
          expect(sig).toHaveLength(44);
        });
      }
    });
  }
});

describe('signers agree with a plain HMAC on keys and texts the vectors do not cover', () => {
  const keys = ['k', 'x'.repeat(64), 'y'.repeat(65), `é-${'z'.repeat(100)}`];
  const texts = ['', 'POST\n/v1/x\n1\nn\nh', 'unicode: 0.5 € ✓'];
  for (const key of keys) {
    it(`a key of ${new TextEncoder().encode(key).length} bytes`, async () => {
      for (const text of texts) {
        const expected = nodeCrypto.createHmac('sha256', key).update(text, 'utf8').digest('base64');
        for (const [, make] of signers) expect(await make(key).hmacBase64(text)).toBe(expected);
      }
    });
  }
});

describe('the signer of a runtime', () => {
  it('answers synchronously with node:crypto, so the attempt loop does not await it', () => {
    const signed = signAttempt(createSigner(vectors.signing_key), 'POST', '/v1/withdrawals', 'h', 1_763_806_800_123);
    expect(signed).not.toBeInstanceOf(Promise);
    expect(signed).toMatchObject({ 'x-timestamp': '1763806800' });
  });

  it('falls back to Web Crypto where there is no node:crypto, with a promise of the same headers', async () => {
    const signer = createSigner(vectors.signing_key, null);
    expect(signer).toBeInstanceOf(WebCryptoSigner);
    const signed = signAttempt(signer, 'POST', '/v1/withdrawals', 'h', 1_763_806_800_999);
    expect(signed).toBeInstanceOf(Promise);
    const headers = await signed;
    expect(headers['x-timestamp']).toBe('1763806800');
    const text = signingString('POST', '/v1/withdrawals', '1763806800', headers['x-nonce'], 'h');
    expect(headers['x-signature']).toBe(nodeCrypto.createHmac('sha256', vectors.signing_key).update(text).digest('base64'));
  });

  it('hashes an absent or empty body to the hash of the empty string without calling the signer', () => {
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const signer = new WebCryptoSigner('k');
    expect(bodySha256(signer, undefined)).toBe(empty);
    expect(bodySha256(signer, new Uint8Array(0))).toBe(empty);
  });
});
