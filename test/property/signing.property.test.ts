/**
 * Signing over a real socket: for random methods, paths, query strings (reserved and non-ASCII
 * characters) and bodies, the `x-signature` the SDK sent equals a reference computed here from
 * the spec's five-line recipe over the raw bytes the server received (Authentication >
 * Signatures). Nothing of the SDK's signing or URL code is used on this side.
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { SIGNING_KEY, startWireServer, type RecordedRequest, type WireServer } from '../helpers/wire-server.js';
import { runs } from './runs.js';

/** The spec's recipe, written out: METHOD, path with query as sent, timestamp, nonce, body hash. */
function reference(req: RecordedRequest): string {
  const lines = [
    req.method.toUpperCase(),
    req.url,
    req.headers['x-timestamp'] ?? '',
    req.headers['x-nonce'] ?? '',
    createHash('sha256').update(req.body).digest('hex'),
  ];
  return createHmac('sha256', SIGNING_KEY).update(lines.join('\n'), 'utf8').digest('base64');
}

/** Text with reserved, percent, plus, space, quote, controls-free non-ASCII and astral characters. */
const nasty = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...'/?#&=+%;:@!$\'()*,[] "<>\\^`{|}~.-_') },
    { weight: 3, arbitrary: fc.constantFrom('é', 'ß', '中', '☕', '😀', 'ä', '\u00a0', '\u2028', 'Ω', 'ç') },
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 16,
});

/** A raw path as `client.request()` takes it: percent-encoded ASCII, built here with the platform encoder. */
const rawPath = fc
  .array(
    nasty.filter((s) => s !== '' && s !== '.' && s !== '..'),
    { minLength: 1, maxLength: 4 },
  )
  .map((segs) => `/v1/${segs.map((s) => encodeURIComponent(s)).join('/')}`);

const query = fc.array(
  fc.tuple(
    nasty.filter((k) => k !== ''),
    fc.oneof(nasty, fc.integer(), fc.boolean()),
  ),
  { maxLength: 5 },
);

/** JSON bodies with unicode (line separators, astral, escapes) at every depth. */
const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 4, arbitrary: fc.dictionary(nasty, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) },
);

let server: WireServer;
let client: MerchantClient;
beforeAll(async () => {
  server = await startWireServer();
  client = wireClient(server.url, { maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('signing (property, over a loopback socket)', () => {
  it('writes: the signature equals the reference over the raw bytes received, and the query arrives intact', async () => {
    const nonces = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'POST' | 'PATCH' | 'PUT' | 'DELETE'>('POST', 'PATCH', 'PUT', 'DELETE'),
        rawPath,
        query,
        body,
        async (method, path, q, b) => {
          const before = server.requests.length;
          const queryObject = Object.fromEntries(q);
          await client.request({ method, path, query: queryObject, body: b, onBehalfOf: 'ext-1' }).catch(() => undefined);
          const received = server.requests.slice(before).filter((r) => r.url !== '/v1/connect/token');
          expect(received).toHaveLength(1);
          const req = received[0]!;
          expect(req.method).toBe(method);
          // Exactly what the SDK signed went on the wire: the reference over the received bytes matches.
          const sig = req.headers['x-signature']!;
          expect(sig).toBe(reference(req));
          expect(sig).toHaveLength(44);
          expect(req.headers['x-timestamp']).toMatch(/^\d{10}$/);
          expect(nonces.has(req.headers['x-nonce']!)).toBe(false);
          nonces.add(req.headers['x-nonce']!);
          // The body received is the JSON of the body given (the empty hash when there is none).
          expect(req.body.toString('utf8')).toBe(b === undefined ? '' : JSON.stringify(b));
          // The path is unchanged and the query decodes back to the parameters given, in order.
          const [p, ...rest] = req.url.split('?');
          expect(p).toBe(path);
          const expected = Object.entries(queryObject).map(([k, v]) => [k, String(v)]);
          expect([...new URLSearchParams(rest.join('?'))]).toEqual(expected);
          expect(req.url).toMatch(/^[\x21-\x7e]+$/);
        },
      ),
      { numRuns: runs(60) },
    );
  });

  it('typed methods: ids in the path are signed as sent, and reads carry no signature', async () => {
    const id = nasty.filter((s) => s.trim() !== '' && s !== '.' && s !== '..');
    await fc.assert(
      fc.asyncProperty(id, fc.constantFrom('confirm', 'fail', 'limits', 'report'), async (value, which) => {
        const before = server.requests.length;
        const member = client.member('ext-1');
        const call =
          which === 'confirm'
            ? member.withdrawals.confirm(value)
            : which === 'fail'
              ? member.withdrawals.fail(value, { reason: value })
              : which === 'limits'
                ? member.cards.updateLimits(value, { single: '10' })
                : client.reports.retrieve(value);
        await call.catch(() => undefined);
        const req = server.requests.slice(before).find((r) => r.url !== '/v1/connect/token')!;
        if (which === 'report') {
          expect(req.method).toBe('GET');
          expect(req.headers['x-signature']).toBeUndefined();
          expect(req.headers['x-nonce']).toBeUndefined();
        } else {
          expect(req.headers['x-signature']).toBe(reference(req));
        }
      }),
      { numRuns: runs(40) },
    );
  });
});
