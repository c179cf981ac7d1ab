import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

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

describe('clock skew', () => {
  for (const skewSeconds of [600, -600]) {
    it(`corrects a ${skewSeconds} s offset from the Date header and retries once with a new nonce`, async () => {
      // The service clock is 10 minutes away from ours; it enforces its ±300 s window.
      server.on('POST', '/v1/exchange/orders', (req) => {
        const serverNow = Date.now() + skewSeconds * 1000;
        const date = new Date(serverNow).toUTCString();
        if (Math.abs(Number(req.headers['x-timestamp']) - serverNow / 1000) > 300)
          return { ...apiError(401, 'timestamp_out_of_range'), headers: { date } };
        return { status: 201, body: { id: 'ex_1' }, headers: { date } };
      });
      await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm', idempotent: true });
      const calls = server.calls();
      expect(calls).toHaveLength(2);
      expect(calls[0]!.headers['x-idempotency-key']).toBe(calls[1]!.headers['x-idempotency-key']);
      expect(calls[0]!.headers['x-nonce']).not.toBe(calls[1]!.headers['x-nonce']);
      expect(Math.round(client.clockOffsetMs / 1000 / 60)).toBe(skewSeconds / 60);
      // Later calls are signed on the corrected clock at the first attempt.
      await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm', idempotent: true });
      expect(server.calls()).toHaveLength(3);
    });
  }

  it('without a usable Date header the error is raised', async () => {
    server.on('POST', '/v1/exchange/orders', { ...apiError(401, 'timestamp_out_of_range'), headers: { date: 'garbage' } });
    const err = await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' }).catch((e: unknown) => e);
    expect(isApiError(err, 'timestamp_out_of_range')).toBe(true);
    expect(server.calls()).toHaveLength(1);
  });
});
