/**
 * `idempotencyKeyFor`: the same key for the same operation in any process, different keys for
 * different namespaces or references, UUID v5 shape, and the documented derivation, recomputed
 * here with node:crypto's SHA-1 (RFC 9562 section 5.5) rather than the uuid package.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyFor, InvalidArgumentError } from '../../src/index.js';

/** UUID v5 of `name` in `namespace`, written from the RFC (not with the uuid package). */
function uuid5(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1')
    .update(Buffer.concat([ns, Buffer.from(name, 'utf8')]))
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const NIL = '00000000-0000-0000-0000-000000000000';
const ROOT = uuid5(NIL, 'merchant-stablecoin:idempotency-key');

describe('idempotencyKeyFor', () => {
  it('is uuid5(uuid5(ROOT, namespace), reference), ROOT being uuid5(NIL, "merchant-stablecoin:idempotency-key")', () => {
    expect(ROOT).toBe('89e16131-3f33-5c56-8cbe-2919c87bba19');
    for (const [ns, ref] of [
      ['payout', 'ord_42'],
      ['card-topup', 'ord_42'],
      ['payout', 'ордер-7 ✓'],
      ['p', 'x'.repeat(1000)],
    ] as const) {
      expect(idempotencyKeyFor(ns, ref)).toBe(uuid5(uuid5(ROOT, ns), ref));
    }
  });

  it('pins one value, for other languages to check their derivation against', () => {
    expect(idempotencyKeyFor('payout', 'ord_42')).toBe('04ae0ed0-245b-5f0f-b8c4-fa667d972605');
  });

  it('is deterministic, and separates namespaces and references', () => {
    const key = idempotencyKeyFor('payout', 'ord_42');
    expect(idempotencyKeyFor('payout', 'ord_42')).toBe(key);
    expect(idempotencyKeyFor('card-topup', 'ord_42')).not.toBe(key);
    expect(idempotencyKeyFor('payout', 'ord_43')).not.toBe(key);
    // The namespace is hashed first, so moving text between the two parts changes the key.
    expect(idempotencyKeyFor('payoutord', '_42')).not.toBe(key);
    expect(idempotencyKeyFor('payout', 'ord_42 ')).not.toBe(key);
  });

  it('has the UUID v5 shape the service checks (8-4-4-4-12 hex, version 5, RFC variant)', () => {
    for (let i = 0; i < 200; i++) {
      expect(idempotencyKeyFor('payout', `ord_${i}`)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('refuses what has no stable bytes: empty text, a non-string, a lone surrogate', () => {
    expect(() => idempotencyKeyFor('', 'ord_42')).toThrow(InvalidArgumentError);
    expect(() => idempotencyKeyFor('payout', '')).toThrow(/reference: must be a non-empty string/);
    expect(() => idempotencyKeyFor('payout', 42 as unknown as string)).toThrow(/reference/);
    expect(() => idempotencyKeyFor('pay\uD800out', 'ord_42')).toThrow(/namespace/);
    expect(idempotencyKeyFor('payout', '😀')).toBe(uuid5(uuid5(ROOT, 'payout'), '😀'));
  });
});
