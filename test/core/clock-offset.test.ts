/**
 * The signing clock (spec: Authentication > Signatures: `x-timestamp` within ±300 s of the service
 * clock, else `timestamp_out_of_range`): the offset the client learns from the service's `Date`,
 * its bound, and what it logs. On a frozen clock, so that offsets are exact to the millisecond.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClockSkewError, isApiError, type LogFields, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { EPOCH_MS, freezeClock, signedAt } from '../helpers/time.js';
import { apiError, startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
let warnings: Array<{ message: string; fields: LogFields | undefined }>;
beforeEach(async () => {
  server = await startWireServer();
  warnings = [];
  freezeClock(0);
});
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server.close();
});

const skewed = (seconds: number): Reply => ({
  ...apiError(401, 'timestamp_out_of_range'),
  headers: { date: new Date(EPOCH_MS + seconds * 1000).toUTCString() },
});
const ok: Reply = { status: 201, body: { id: 'ex_1' } };
const order = () => client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm', idempotent: true });

function newClient(options = {}): MerchantClient {
  client = wireClient(server.url, { logger: { warn: (message, fields) => void warnings.push({ message, fields }) }, ...options });
  return client;
}

describe('learning the service clock', () => {
  it('adopts the offset the Date header shows, and signs the retry and later calls with it', async () => {
    newClient();
    server.on('POST', '/v1/exchange/orders', [skewed(600), ok, ok]);
    await order();
    await order();
    expect(client.clockOffsetMs).toBe(600_000);
    expect(server.calls().map(signedAt)).toEqual([0, 600, 600]);
    expect(warnings).toEqual([{ message: 'corrected the signing clock from the service Date header', fields: { offsetMs: 600_000 } }]);
  });

  it('corrects once per call: a second timestamp_out_of_range is raised', async () => {
    newClient();
    server.on('POST', '/v1/exchange/orders', [skewed(600), skewed(600), ok]);
    const err = await order().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'timestamp_out_of_range')).toBe(true);
    expect(server.calls()).toHaveLength(2);
  });

  it('logs a new offset only when it moved by a second or more, but always adopts it', async () => {
    newClient();
    server.on('POST', '/v1/exchange/orders', [skewed(600), ok, skewed(600), ok, skewed(601), ok, skewed(-5), ok]);
    for (let i = 0; i < 4; i++) await order();
    expect(warnings.map((w) => w.fields)).toEqual([{ offsetMs: 600_000 }, { offsetMs: 601_000 }, { offsetMs: -5000 }]);
    expect(client.clockOffsetMs).toBe(-5000);
  });

  it('adopts an offset up to maxClockSkewMs (default one hour) and refuses one beyond it', async () => {
    newClient();
    server.on('POST', '/v1/exchange/orders', [skewed(3600), ok, skewed(-3601)]);
    await order();
    expect(client.clockOffsetMs).toBe(3_600_000);
    const err = await order().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClockSkewError);
    expect(err).toMatchObject({ name: 'ClockSkewError', offsetMs: -3_601_000, maxOffsetMs: 3_600_000 });
    expect((err as Error).message).toBe(
      "The service clock is -3601 s away from this host's clock, beyond the 3600 s the SDK adopts (maxClockSkewMs). Fix the host clock (NTP).",
    );
    // Nothing was adopted.
    expect(client.clockOffsetMs).toBe(3_600_000);
  });

  it('follows a configured bound', async () => {
    newClient({ maxClockSkewMs: 10_000 });
    server.on('POST', '/v1/exchange/orders', [skewed(10), ok, skewed(11)]);
    await order();
    expect(client.clockOffsetMs).toBe(10_000);
    expect(await order().catch((e: unknown) => e)).toBeInstanceOf(ClockSkewError);
  });
});
