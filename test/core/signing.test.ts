import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hmacBase64, sha256Hex, signingString } from '../../src/core/signing.js';

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

describe('signing known-answer vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.vectors.length).toBeGreaterThanOrEqual(4);
  });
  for (const v of vectors.vectors) {
    it(`${v.method} ${v.path_with_query}`, () => {
      const hash = sha256Hex(Buffer.from(v.body_utf8, 'utf8'));
      expect(hash).toBe(v.body_sha256_hex);
      const text = signingString(v.method, v.path_with_query, v.x_timestamp, v.x_nonce, hash);
      expect(text).toBe(v.signing_string);
      const sig = hmacBase64(vectors.signing_key, text);
      expect(sig).toBe(v.x_signature);
      expect(sig).toHaveLength(44);
    });
  }
});
