/**
 * A key rotation rehearsed over HTTP with real `MerchantClient`s: `POST
 * /__sandbox/credentials/rotate` answers the new generated values and the cut, the old client
 * (and its token) keeps working during the overlap, the cut is stepped with `POST
 * /__sandbox/clock` (no real wait), after which the old key is refused and the new one works;
 * `POST /__sandbox/reset` brings the initial key back. The command's start lines name the route.
 */
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../src/index.js';
import { runCli } from '../../src/testing/cli/main.js';
import { servedWorlds, thrownBy } from '../testing/served.js';
import { adminGet, adminSend } from './raw.js';

const serve = servedWorlds();

interface Rotated {
  client_id?: string;
  api_key?: string;
  signing_key?: string;
  prev_valid_until_ms: number;
  prev_valid_until: string;
  overlap_ms: number;
  client_id_changed: boolean;
  given: string[];
}

describe('POST /__sandbox/credentials/rotate with real clients', () => {
  it('old and new keys work during the overlap; at the cut the old key and its token are refused', async () => {
    const { sandbox, server, client: oldClient, newClient } = await serve();
    const old = sandbox.credentials;
    const { now_ms: now } = await adminGet<{ now_ms: number }>(server, '/__sandbox/clock');
    await adminSend(server, 'POST', '/__sandbox/clock', { freeze: now });
    // The old client holds a token of the old key from here on.
    await oldClient.sandbox.faucet({ asset: 'USDT', amount: '1' });

    const rotated = await adminSend<Rotated>(server, 'POST', '/__sandbox/credentials/rotate', { overlap_ms: 60_000 });
    expect(rotated.status).toBe(200);
    const r = rotated.body;
    expect(r).toMatchObject({ prev_valid_until_ms: now + 60_000, overlap_ms: 60_000, client_id_changed: false, given: [] });
    expect(r.prev_valid_until).toBe(new Date(now + 60_000).toISOString());
    // The kept client id is not repeated; the new generated secrets are answered once.
    expect(r.client_id).toBeUndefined();
    expect(r).toMatchObject({ api_key: sandbox.credentials.apiKey, signing_key: sandbox.credentials.signingKey });
    expect(JSON.stringify(r)).not.toContain(old.apiKey);
    expect(JSON.stringify(r)).not.toContain(old.signingKey);

    const next = newClient({ clientId: old.clientId, apiKey: r.api_key!, signingKey: r.signing_key! });
    const oldFresh = newClient({ ...old });
    // The overlap: the old client's cached token, a new exchange with the old key, and the new key.
    for (const c of [oldClient, oldFresh, next]) await c.sandbox.faucet({ asset: 'USDT', amount: '1' });
    expect(sandbox.state.countEffects('faucet.credit')).toBe(4);

    await adminSend(server, 'POST', '/__sandbox/clock', { advance_ms: 60_000 });
    sandbox.resetRequests();
    // The old token is refused; the client renews it with the old key, which is refused too.
    const tokenRefused = await thrownBy(() => oldClient.assets.list());
    expect(isApiError(tokenRefused, 'invalid_credentials')).toBe(true);
    expect(sandbox.requests.map((q) => [q.path, q.code])).toEqual([
      ['/v1/assets', 'invalid_token'],
      ['/v1/connect/token', 'invalid_credentials'],
    ]);
    const exchangeRefused = await thrownBy(() => newClient({ ...old }).assets.list());
    expect(isApiError(exchangeRefused, 'invalid_credentials')).toBe(true);
    await thrownBy(() => oldFresh.sandbox.faucet({ asset: 'USDT', amount: '1' }));
    await next.sandbox.faucet({ asset: 'USDT', amount: '1' });
    expect((await next.assets.list()).data.length).toBeGreaterThan(0);
    expect(sandbox.state.countEffects('faucet.credit')).toBe(5);

    const reset = await adminSend(server, 'POST', '/__sandbox/reset');
    expect(reset.status).toBe(200);
    expect(sandbox.credentials).toEqual(old);
    expect((await newClient({ ...old }).assets.list()).data.length).toBeGreaterThan(0);
    expect(
      isApiError(await thrownBy(() => newClient({ clientId: old.clientId, apiKey: r.api_key! }).assets.list()), 'invalid_credentials'),
    ).toBe(true);
  });

  it('new_client_id answers the new client id; given values are named, never echoed; bad bodies are 400', async () => {
    const { sandbox, server, newClient } = await serve();
    const old = sandbox.credentials;
    const moved = await adminSend<Rotated>(server, 'POST', '/__sandbox/credentials/rotate', { overlap_ms: 0, new_client_id: true });
    expect(moved.body.client_id_changed).toBe(true);
    expect(moved.body.client_id).toBe(sandbox.credentials.clientId);
    expect(moved.body.client_id).not.toBe(old.clientId);
    expect((await newClient().assets.list()).data.length).toBeGreaterThan(0);
    expect(isApiError(await thrownBy(() => newClient({ ...old }).assets.list()), 'invalid_credentials')).toBe(true);

    const fixed = await adminSend<Rotated>(server, 'POST', '/__sandbox/credentials/rotate', {
      api_key: 'ak_given_secret',
      signing_key: 'sk_given_secret',
    });
    expect(fixed.body.given).toEqual(['api_key', 'signing_key']);
    expect(JSON.stringify(fixed.body)).not.toContain('given_secret');
    expect(sandbox.credentials).toMatchObject({ apiKey: 'ak_given_secret', signingKey: 'sk_given_secret' });
    await newClient().sandbox.faucet({ asset: 'USDT' });

    for (const bad of [
      { overlap_ms: -1 },
      { overlap_ms: 'soon' },
      { new_client_id: 'yes' },
      { api_key: '' },
      { client_id: 'c', new_client_id: true },
    ]) {
      expect((await adminSend(server, 'POST', '/__sandbox/credentials/rotate', bad)).status).toBe(400);
    }
    expect(sandbox.credentials.apiKey).toBe('ak_given_secret');
  });
});

describe('the command', () => {
  it('names the rotation route in its start lines and never prints the rotated values', async () => {
    let out = '';
    let stop: ((signal: string) => void) | undefined;
    let exited: () => void = () => undefined;
    const exit = new Promise<void>((res) => (exited = res));
    await runCli(['--port', '0'], {}, { out: (t) => (out += t), err: (t) => (out += t), exit: () => exited(), onStop: (s) => (stop = s) });
    const base = /^export MERCHANT_API_BASE_URL=(\S+)$/m.exec(out)![1]!;
    expect(out).toContain(`# Rotate the key: POST ${base}/__sandbox/credentials/rotate {"overlap_ms": n}\n`);
    const res = await fetch(`${base}/__sandbox/credentials/rotate`, { method: 'POST', body: JSON.stringify({ overlap_ms: 1000 }) });
    const body = (await res.json()) as Rotated;
    expect(res.status).toBe(200);
    stop!('SIGTERM');
    await exit;
    expect(out).not.toContain(body.api_key!);
    expect(out).not.toContain(body.signing_key!);
  });
});
