import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import { MEMBER, SAMPLES } from './samples.js';

/** A name-only list answers a `LoosePage`: the envelope's fields, what it was, and the body as received. */
function looseListResult(id: string, reply: unknown): unknown {
  const loose = ENDPOINTS.find((e) => e.id === id)?.typing === 'loose';
  if (!loose || typeof reply !== 'object' || reply === null || !('has_more' in reply)) return reply;
  return { ...reply, shape: 'envelope', body: reply };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let server: WireServer;
let client: MerchantClient;

beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('each endpoint on the wire', () => {
  for (const [id, sample] of Object.entries(SAMPLES)) {
    it(`${id}: ${sample.request}`, async () => {
      const [method, url] = sample.request.split(' ') as [string, string];
      server.on(method, url.split('?')[0]!, { status: sample.status ?? 200, body: sample.reply });

      const result = await sample.call(client);

      const calls = server.calls();
      expect(calls).toHaveLength(1);
      const req = calls[0]!;
      expect(`${req.method} ${req.url}`).toBe(sample.request);
      // Member context only where the endpoint is member-scoped.
      expect(req.headers['x-on-behalf-of']).toBe(sample.member ? MEMBER : undefined);
      // Idempotency key only on writes that take one.
      if (sample.key) expect(req.headers['x-idempotency-key']).toMatch(UUID);
      else expect(req.headers['x-idempotency-key']).toBeUndefined();
      // Signatures on every method except GET, and they verify independently.
      if (method === 'GET') {
        expect(req.headers['x-signature']).toBeUndefined();
        expect(req.headers['x-timestamp']).toBeUndefined();
        expect(req.headers['x-nonce']).toBeUndefined();
      } else {
        expect(req.signatureValid).toBe(true);
      }
      // Exact body bytes.
      expect(req.body.toString('utf8')).toBe(sample.body ?? '');
      expect(req.headers['x-auth-token']).toBe('Bearer tok_1');
      // The typed result: the body as sent (unknown fields kept), or the documented projection.
      expect(result).toEqual(sample.expected ?? looseListResult(id, sample.reply));
    });
  }
});

describe('result helpers keep the response metadata', () => {
  it('balances.list().withResponse() gives the data array and the request id', async () => {
    const sample = SAMPLES['member.balances.list']!;
    server.on('GET', '/v1/balances', { body: sample.reply });
    const { data, response } = await client.member(MEMBER).balances.list().withResponse();
    expect(data).toEqual(sample.expected);
    expect(response.status).toBe(200);
    expect(response.requestId).toMatch(/^req_/);
  });

  it('balances.envelope() gives the whole envelope, transitional copy included', async () => {
    const sample = SAMPLES['member.balances.list']!;
    server.on('GET', '/v1/balances', { body: sample.reply });
    expect(await client.member(MEMBER).balances.envelope()).toEqual(sample.reply);
  });

  it('corridorsEnvelope() gives the envelope; corridors() an empty array when nothing is available', async () => {
    server.on('GET', '/v1/remit/corridors', { body: { data: [], next_cursor: null, has_more: false } });
    expect(await client.remittances.corridors()).toEqual([]);
    expect(await client.remittances.corridorsEnvelope({ line: 'express' })).toEqual({ data: [], next_cursor: null, has_more: false });
    expect(server.calls().map((r) => r.url)).toEqual(['/v1/remit/corridors', '/v1/remit/corridors?line=express']);
  });

  it('a caller idempotency key is sent unchanged', async () => {
    const key = '0b6a6f1c-2d3e-4f50-8a9b-0c1d2e3f4a5b';
    server.on('POST', '/v1/sandbox/faucet', { body: { ...(SAMPLES['sandbox.faucet']!.reply as object), duplicated: true } });
    const { data, response } = await client.sandbox.faucet({ asset: 'USDT' }, { idempotencyKey: key }).withResponse();
    expect(data.duplicated).toBe(true);
    expect(response.idempotencyKey).toBe(key);
    expect(server.calls()[0]!.headers['x-idempotency-key']).toBe(key);
    expect(server.calls()[0]!.body.toString()).toBe('{"asset":"USDT"}');
  });

  it('a response that breaks a documented shape raises ResponseValidationError with the request id', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { id: 'wdr_1', status: 'locked' } });
    await expect(client.member(MEMBER).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' })).rejects.toMatchObject({
      name: 'ResponseValidationError',
      requestId: expect.stringMatching(/^req_/),
    });
  });
});
