/**
 * The token endpoint's limits as the client keeps them (spec: Authentication > Stage 1, "Token
 * exchange is limited to 20 per minute"; the token lasts 30 minutes and is renewed before
 * `expired_at`), read on the wire on a frozen clock: the server records when each exchange attempt
 * arrived (the exchange is unsigned, so it carries no `x-timestamp`).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { EPOCH_S, freezeClock, receivedAt } from '../helpers/time.js';
import { apiError, startWireServer, type RecordedRequest, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;

beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
});
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server.close();
});

const read = () => client.request({ method: 'GET', path: '/v1/assets' });
const exchanges = (): RecordedRequest[] => server.requests.filter((r) => r.url === '/v1/connect/token');

/** The first `failing` exchange attempts answer 502; later ones issue a 30-minute token. */
function tokenEndpointFailing(failing: number): void {
  server.onToken((_req, n) =>
    n < failing
      ? apiError(502, 'upstream_error')
      : { body: { auth_token: `tok_${n}`, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
  );
}

/** A call whose single exchange attempt fails (no retries): one attempt in the window. */
const failedRenewal = async () =>
  expect(
    await read().then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    ),
  ).toBe('upstream_error');

describe('token exchange throttle: 20 attempts per minute', () => {
  it('the 21st exchange attempt within a minute is sent when the first is a minute old', async () => {
    freezeClock(0);
    tokenEndpointFailing(20);
    // A call's deadline bounds its wait for the token: room for the minute's wait.
    client = wireClient(server.url, { maxRetries: 0, timeoutMs: 120_000 });
    for (let i = 0; i < 20; i++) await failedRenewal();
    expect(exchanges()).toHaveLength(20);

    const late = read();
    // It waits on the clock: sent when the minute has passed, not before.
    await vi.advanceTimersByTimeAsync(60_000);
    await late;
    expect(exchanges().map(receivedAt)).toEqual([...Array<number>(20).fill(0), 60]);
  });

  it('the window slides: never more than 20 attempts in any 60 s', async () => {
    freezeClock(0);
    tokenEndpointFailing(40);
    // A call's deadline bounds its wait for the token: room for the minute's wait.
    client = wireClient(server.url, { maxRetries: 0, timeoutMs: 120_000 });
    for (let i = 0; i < 10; i++) await failedRenewal();
    await vi.advanceTimersByTimeAsync(30_000);
    for (let i = 0; i < 10; i++) await failedRenewal();
    // Full: the 21st waits for the first ten to age out at 60 s; then nine more fit at once.
    const at60 = failedRenewal();
    await vi.advanceTimersByTimeAsync(30_000);
    await at60;
    for (let i = 0; i < 9; i++) await failedRenewal();
    // Full again until the second ten age out at 90 s.
    const at90 = failedRenewal();
    await vi.advanceTimersByTimeAsync(30_000);
    await at90;
    const seconds = exchanges().map(receivedAt);
    expect(seconds).toEqual([...Array<number>(10).fill(0), ...Array<number>(10).fill(30), ...Array<number>(10).fill(60), 90]);
    for (const start of seconds) expect(seconds.filter((s) => s >= start && s < start + 60).length).toBeLessThanOrEqual(20);
  });
});

describe('token renewal margin', () => {
  it('reuses a token until tokenRenewBeforeSeconds before expired_at, then renews it', async () => {
    freezeClock(0);
    // expired_at is in Unix seconds: 121 s from now, one second beyond the default 120 s margin.
    server.onToken({ body: { auth_token: 'tok_a', expired_at: EPOCH_S + 121, token_type: 'Bearer', scopes: [] } });
    client = wireClient(server.url);
    await read();
    await vi.advanceTimersByTimeAsync(999);
    await read();
    expect(exchanges()).toHaveLength(1);
    server.onToken({ body: { auth_token: 'tok_b', expired_at: EPOCH_S + 1801, token_type: 'Bearer', scopes: [] } });
    await vi.advanceTimersByTimeAsync(1);
    await read();
    expect(exchanges()).toHaveLength(2);
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_a', 'Bearer tok_a', 'Bearer tok_b']);
  });

  it("holds a token no longer than the spec's 30 minutes, whatever its expired_at says (a host clock behind at arrival)", async () => {
    freezeClock(0);
    server.onToken({ body: { auth_token: 'tok_a', expired_at: EPOCH_S + 7200, token_type: 'Bearer', scopes: [] } });
    client = wireClient(server.url);
    await read();
    // 30 minutes less the default 120 s margin.
    await vi.advanceTimersByTimeAsync(28 * 60_000 - 1);
    await read();
    expect(exchanges()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await read();
    expect(exchanges()).toHaveLength(2);
  });

  it('follows a configured margin', async () => {
    freezeClock(0);
    server.onToken({ body: { auth_token: 'tok_a', expired_at: EPOCH_S + 11, token_type: 'Bearer', scopes: [] } });
    client = wireClient(server.url, { tokenRenewBeforeSeconds: 10 });
    await read();
    await vi.advanceTimersByTimeAsync(999);
    await read();
    expect(exchanges()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await read();
    expect(exchanges()).toHaveLength(2);
  });

  it('a token that arrives already inside the margin is used for one minute, then renewed', async () => {
    freezeClock(0);
    let n = 0;
    server.onToken(() => ({ body: { auth_token: `tok_${++n}`, expired_at: EPOCH_S + 60, token_type: 'Bearer', scopes: [] } }));
    client = wireClient(server.url);
    await read();
    await vi.advanceTimersByTimeAsync(59_999);
    await read();
    expect(exchanges()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await read();
    expect(exchanges()).toHaveLength(2);
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2']);
  });
});
