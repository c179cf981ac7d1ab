/**
 * What the client shows of itself and sends on its own account: the User-Agent suffix, its base
 * URL, how inspection shows a client id, and a raw request's secret fields masked when a server
 * echoes them.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer | undefined;
let client: MerchantClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('the client on its own account', () => {
  it('appends the userAgentSuffix to the User-Agent, without its control characters', async () => {
    server = await startWireServer();
    server.on('GET', '/v1/assets', { body: { data: [], has_more: false, next_cursor: null } });
    client = wireClient(server.url, { userAgentSuffix: 'shop-backend/2.1\r\nx-evil: 1' });
    await client.assets.list();
    const ua = server.calls()[0]!.headers['user-agent']!;
    expect(ua).toMatch(/^merchant-stablecoin\/\S+ .* shop-backend\/2\.1x-evil: 1$/);
    expect(server.calls()[0]!.headers['x-evil']).toBeUndefined();
  });

  it('shows its base URL, and a client id of 4 characters or fewer only as ***', () => {
    client = wireClient('http://127.0.0.1:9/', { clientId: 'cli1' });
    expect(client.baseUrl).toBe('http://127.0.0.1:9');
    expect(inspect(client)).toBe("MerchantClient { baseUrl: 'http://127.0.0.1:9', clientId: '***' }");
    expect(JSON.stringify(client)).toBe('{"baseUrl":"http://127.0.0.1:9","clientId":"***"}');
  });

  it('masks the secretFields of a raw request when the server echoes them into its error', async () => {
    server = await startWireServer();
    server.on('POST', '/v1/cards/card_1/pin', (req) => {
      const pin = (JSON.parse(req.body.toString()) as { pin: string }).pin;
      return { status: 400, body: { code: 'invalid_request', message: `pin ${pin} is not accepted` } };
    });
    client = wireClient(server.url);
    const err = await client.request({ method: 'POST', path: '/v1/cards/card_1/pin', body: { pin: '739104' }, secretFields: ['pin'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_request');
    expect(JSON.parse(server.calls()[0]!.body.toString())).toEqual({ pin: '739104' });
    for (const text of [(err as Error).message, String((err as Error).stack), inspect(err), JSON.stringify(err)])
      expect(text).not.toContain('739104');
  });

  it('a secret field sent as a number is masked as its digits; one absent from the body masks nothing', async () => {
    server = await startWireServer();
    server.on('POST', '/v1/cards/card_1/pin', (req) => {
      const { pin } = JSON.parse(req.body.toString() || 'null') ?? {};
      return { status: 400, body: { code: 'invalid_request', message: `pin ${String(pin)} is not accepted` } };
    });
    client = wireClient(server.url);
    const messageOf = (body: unknown): Promise<string> =>
      client!.request({ method: 'POST', path: '/v1/cards/card_1/pin', body, secretFields: ['pin'] }).then(
        () => 'resolved',
        (e: unknown) => (e as Error).message,
      );
    expect(await messageOf({ pin: 739104 })).toMatch(/: pin \[redacted\] is not accepted/);
    expect(JSON.parse(server.calls()[0]!.body.toString())).toEqual({ pin: 739104 });
    expect(await messageOf({ card: 'x' })).toMatch(/: pin undefined is not accepted/);
    expect(await messageOf(null)).toMatch(/: pin undefined is not accepted/);
    expect(server.calls().map((c) => c.body.toString())).toEqual(['{"pin":739104}', '{"card":"x"}', 'null']);
  });
});
