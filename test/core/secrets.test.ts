import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, MerchantClient, type LogFields } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { API_KEY, apiError, SIGNING_KEY, startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await server.close();
});

describe('secrets never leak', () => {
  it('not in logs, inspect, JSON or error messages across success, retries and failures', async () => {
    const lines: string[] = [];
    const capture = (message: string, fields?: LogFields) => lines.push(`${message} ${JSON.stringify(fields)}`);
    const client = wireClient(server.url, { logger: { debug: capture, info: capture, warn: capture, error: capture }, logLevel: 'debug' });
    server.on('POST', '/v1/cards/crd_1/activate', [apiError(400, 'state_invalid', { locked_until: '2026-11-24T00:00:00Z' })]);
    server.on('POST', '/v1/withdrawals', [
      apiError(502, 'upstream_error'),
      { status: 201, body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', ledger_scale: 6, to_address: 'T' } },
    ]);
    const errors: unknown[] = [];
    await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
    errors.push(
      await client
        .member('m')
        .cards.activate('crd_1', { expiry: '01/30', pin: '9876' })
        .catch((e: unknown) => e),
    );
    errors.push(await client.request({ method: 'GET', path: '/v1/nothing' }).catch((e: unknown) => e));
    const tokens = server.calls().map((c) => c.headers['x-auth-token']!.slice('Bearer '.length));
    const signatures = server.calls().flatMap((c) => (c.headers['x-signature'] ? [c.headers['x-signature']] : []));
    expect(tokens.length).toBeGreaterThan(0);
    expect(signatures.length).toBeGreaterThan(0);
    const outputs = [
      ...lines,
      inspect(client, { depth: 10, showHidden: true }),
      JSON.stringify(client),
      ...errors.flatMap((e) => [String(e), (e as Error).message, (e as Error).stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 })]),
    ].join('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const secret of [API_KEY, SIGNING_KEY, '9876', ...tokens, ...signatures]) expect(outputs).not.toContain(secret);
    await client.close();
  });

  it('a token rotated out while the call was in flight (six renewals), echoed by the server, is masked everywhere', async () => {
    let issued = 0;
    const tokenOf = (n: number): string => `tok_${n}_Zq8uW2rE`;
    server.onToken(() => ({
      body: { auth_token: tokenOf(++issued), expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    }));
    // Each token serves one read: the next read with it is answered invalid_token, so the client renews.
    const usedForRead = new Set<string>();
    server.on('GET', '/v1/assets', (req) => {
      const token = req.headers['x-auth-token']!;
      if (usedForRead.has(token)) return apiError(401, 'invalid_token');
      usedForRead.add(token);
      return { body: { data: [] } };
    });
    let answerWrite!: () => void;
    const released = new Promise<void>((resolve) => (answerWrite = resolve));
    server.on('POST', '/v1/withdrawals', async (req) => {
      await released;
      const echoed = req.headers['x-auth-token']!;
      return {
        status: 400,
        headers: { 'x-request-id': `req ${echoed}` },
        body: {
          type: 'invalid_request_error',
          code: 'invalid_request',
          message: `bad header x-auth-token: ${echoed}`,
          request_id: `req ${echoed}`,
        },
      };
    });
    const client = wireClient(server.url);
    const write = client
      .member('m')
      .withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' })
      .catch((e: unknown) => e);
    while (server.calls().length === 0) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 7; i++) await client.request({ method: 'GET', path: '/v1/assets' });
    expect(issued).toBe(7);
    answerWrite();
    const err = (await write) as Error;
    await client.close();
    expect(err).toMatchObject({ code: 'invalid_request' });
    const first = tokenOf(1);
    expect(server.calls()[0]!.headers['x-auth-token']).toBe(`Bearer ${first}`);
    const outputs = [err.message, err.stack ?? '', String(err), JSON.stringify(err), inspect(err, { depth: 10, showHidden: true })];
    for (const text of outputs) {
      expect(text).not.toContain(first);
      expect(text).not.toContain('Zq8uW2rE');
    }
    expect(err.message).toContain('bad header x-auth-token: Bearer [redacted]');
  });

  it('configuration errors name the setting and never echo a value', () => {
    const env = process.env;
    try {
      process.env = {};
      const e1 = (() => {
        try {
          new MerchantClient({ baseUrl: 'https://h.example', clientId: 'c', apiKey: 'super-secret-key' });
        } catch (e) {
          return e;
        }
      })();
      expect(e1).toBeInstanceOf(InvalidArgumentError);
      expect((e1 as InvalidArgumentError).argument).toBe('signingKey');
      expect((e1 as Error).message).toContain('MERCHANT_API_SIGNING_KEY');
      expect((e1 as Error).message).not.toContain('super-secret-key');
      expect(() => new MerchantClient({ baseUrl: 'not a url super-secret', clientId: 'c', apiKey: 'k', signingKey: 's' })).toThrow(
        /baseUrl: is not a valid absolute URL/,
      );
      try {
        new MerchantClient({ baseUrl: 'https://h.example', clientId: 'c', apiKey: 'k', signingKey: 'secret with\nnewline' });
      } catch (e) {
        expect((e as Error).message).not.toContain('secret with');
      }
    } finally {
      process.env = env;
    }
  });

  it('reads MERCHANT_API_* variables when options are omitted', async () => {
    const env = process.env;
    process.env = {
      ...env,
      MERCHANT_API_BASE_URL: server.url,
      MERCHANT_API_CLIENT_ID: 'cli_wire_test',
      MERCHANT_API_KEY: API_KEY,
      MERCHANT_API_SIGNING_KEY: SIGNING_KEY,
    };
    try {
      const client = new MerchantClient();
      server.on('POST', '/v1/exchange/orders', { status: 201, body: {} });
      await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' });
      expect(server.calls()[0]!.signatureValid).toBe(true);
      await client.close();
    } finally {
      process.env = env;
    }
  });
});
