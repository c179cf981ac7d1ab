/**
 * Authentication paths through the SDK over server mode: live credentials beside sandbox ones
 * (`environment_mismatch`, the faucet's 404), the key's IP allowlist, the token exchange's
 * signature, and the `members_write` and `deposits` buckets.
 */
import { describe, expect, it } from 'vitest';
import { isApiError, type ApiError, type StoredToken, type TokenStore } from '../../src/index.js';
import { DEFAULT_QUOTAS } from '../../src/testing/index.js';
import { exchangeHeaders } from './harness.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();

/** A shared token store that ignores the key: the way a token ends up on the wrong host. */
function oneSlotStore(): TokenStore {
  let slot: StoredToken | undefined;
  return {
    get: () => slot,
    set: (_key, token) => {
      slot = token;
    },
    delete: () => {
      slot = undefined;
    },
  };
}

describe('live credentials beside sandbox ones', () => {
  it('the faucet answers a live key 404 not_found, on the production host, while its other calls work', async () => {
    const { sandbox, newClient } = await serve();
    const liveServer = await sandbox.listen({ environment: 'live' });
    try {
      const live = newClient({ baseUrl: liveServer.url, ...sandbox.liveCredentials });
      expect((await live.assets.list()).data.length).toBeGreaterThan(0);
      const err = await thrownBy(() => live.sandbox.faucet({ asset: 'USDT' }));
      expect(isApiError(err, 'not_found')).toBe(true);
      expect((err as ApiError).status).toBe(404);
      expect(sandbox.state.countEffects('faucet.credit')).toBe(0);
    } finally {
      await liveServer.close();
    }
  });

  it('credentials of one environment at the other host: environment_mismatch at token exchange', async () => {
    const { sandbox, newClient } = await serve();
    const liveServer = await sandbox.listen({ environment: 'live' });
    try {
      const liveKeyOnSandbox = await thrownBy(() => newClient(sandbox.liveCredentials).assets.list());
      expect(isApiError(liveKeyOnSandbox, 'environment_mismatch')).toBe(true);
      const sandboxKeyOnLive = await thrownBy(() => newClient({ baseUrl: liveServer.url }).assets.list());
      expect(isApiError(sandboxKeyOnLive, 'environment_mismatch')).toBe(true);
      expect((sandboxKeyOnLive as ApiError).status).toBe(400);
      expect(sandbox.stats.tokenExchanges).toBe(0);
    } finally {
      await liveServer.close();
    }
  });

  it('a live token sent to the sandbox host: environment_mismatch, and nothing executes', async () => {
    const { sandbox, newClient } = await serve();
    const liveServer = await sandbox.listen({ environment: 'live' });
    try {
      const tokens = oneSlotStore();
      await newClient({ baseUrl: liveServer.url, ...sandbox.liveCredentials, tokenStore: tokens }).assets.list();
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
      const crossed = newClient({ tokenStore: tokens });
      const err = await thrownBy(() => crossed.member(m.id).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }));
      expect(isApiError(err, 'environment_mismatch')).toBe(true);
      expect(sandbox.requests.filter((r) => r.path === '/v1/withdrawals')[0]!.headers['x-auth-token']).toMatch(/^Bearer tok_live_/);
      expect(sandbox.state.countEffects()).toBe(0);
    } finally {
      await liveServer.close();
    }
  });
});

describe('the key’s IP allowlist (server mode: the socket’s address, 127.0.0.1)', () => {
  it('single IPs, wildcard prefixes and /8, /16, /24 CIDR admit; /28, /32 and other hosts do not', async () => {
    const { sandbox, newClient } = await serve();
    const admitted = ['127.0.0.1', '127.0.0.*', '127.*', '127.0.0.0/24', '127.0.0.0/16', '127.0.0.0/8', '10.0.0.1, 127.0.0.1'];
    for (const entry of admitted) {
      sandbox.setIpAllowlist(entry.split(', '));
      expect((await newClient().assets.list()).data.length, entry).toBeGreaterThan(0);
    }
    for (const entry of ['127.0.0.0/28', '127.0.0.1/32', '10.0.0.0/8', '127.0.1.*', '::1']) {
      sandbox.setIpAllowlist([entry]);
      const before = sandbox.stats.tokenExchangeAttempts;
      const err = await thrownBy(() => newClient().assets.list());
      expect(isApiError(err, 'ip_not_allowed'), entry).toBe(true);
      expect((err as ApiError).status).toBe(403);
      // Refused at the token exchange, once: the SDK does not retry ip_not_allowed.
      expect(sandbox.stats.tokenExchangeAttempts - before).toBe(1);
      // The list is not echoed.
      expect(JSON.stringify({ message: (err as ApiError).message, extras: (err as ApiError).extras })).not.toContain(entry);
    }
  });

  it('is read on every request: a token issued before the change is refused after it', async () => {
    const { sandbox, client } = await serve();
    await client.assets.list();
    sandbox.setIpAllowlist(['198.51.100.7']);
    const err = await thrownBy(() => client.assets.list());
    expect(isApiError(err, 'ip_not_allowed')).toBe(true);
    sandbox.setIpAllowlist([]);
    expect((await client.assets.list()).data.length).toBeGreaterThan(0);
  });

  it('in-process (msw or direct), setClientIp sets the caller; IPv6 matches only by exact address', async () => {
    const { sandbox } = await serve();
    const direct = sandbox.client();
    try {
      sandbox.setIpAllowlist(['2001:db8::1', '203.0.113.*']);
      sandbox.setClientIp('203.0.113.77');
      await direct.assets.list();
      sandbox.setClientIp('2001:DB8::1');
      await direct.assets.list();
      sandbox.setClientIp('2001:db8::2');
      expect(isApiError(await thrownBy(() => direct.assets.list()), 'ip_not_allowed')).toBe(true);
      sandbox.setIpAllowlist(['2001:db8::/32']);
      sandbox.setClientIp('2001:db8::1');
      expect(isApiError(await thrownBy(() => direct.assets.list()), 'ip_not_allowed')).toBe(true);
    } finally {
      await direct.close();
    }
  });

  it('a live key must keep a non-empty list (loopback by default)', async () => {
    const { sandbox } = await serve();
    expect(() => sandbox.setIpAllowlist([], 'live')).toThrow(/non-empty/);
  });
});

describe('the token exchange is unsigned (spec: the signing key is never used for it)', () => {
  it('the SDK’s exchange carries x-client-id and x-api-key only; a wrong signing key gets a token, and fails at its first write', async () => {
    const { sandbox, client, newClient } = await serve();
    await client.assets.list();
    const exchange = sandbox.requests.find((r) => r.path === '/v1/connect/token')!;
    expect(
      Object.keys(exchange.headers)
        .filter((h) => h.startsWith('x-'))
        .sort(),
    ).toEqual(['x-api-key', 'x-client-id']);
    const wrongKey = newClient({ signingKey: 'not-the-signing-key' });
    await wrongKey.assets.list();
    expect(sandbox.stats.tokenExchanges).toBe(2);
    const err = await thrownBy(() => wrongKey.members.create({ external_member_id: 'sig-1' }));
    expect(isApiError(err, 'invalid_signature')).toBe(true);
  });

  it('the two credential headers alone get a token; signature headers are ignored, not checked; wrong credentials are invalid_credentials', async () => {
    const { sandbox, server } = await serve();
    const { clientId } = sandbox.credentials;
    const post = (headers: Record<string, string>) => fetch(`${server.url}/v1/connect/token`, { method: 'POST', headers });
    const plain = await post(exchangeHeaders(sandbox));
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ token_type: 'Bearer' });
    const garbage = { 'x-timestamp': '1', 'x-nonce': 'n', 'x-signature': 'not-a-signature' };
    expect((await post({ ...exchangeHeaders(sandbox), ...garbage })).status).toBe(200);
    expect((await post({ ...exchangeHeaders(sandbox), ...garbage })).status).toBe(200);
    const refusedHeaders: Array<Record<string, string>> = [
      { 'x-client-id': clientId, 'x-api-key': 'wrong' },
      { 'x-client-id': clientId },
      {},
    ];
    for (const headers of refusedHeaders) {
      const refused = await post(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'invalid_credentials' });
    }
    expect(sandbox.stats.tokenExchanges).toBe(3);
  });
});

describe('members_write and deposits buckets (POST /v1/members 300, POST /v1/deposits 60 a minute)', () => {
  it('each has its own quota, apart from orders', async () => {
    expect([DEFAULT_QUOTAS.members_write, DEFAULT_QUOTAS.deposits, DEFAULT_QUOTAS.orders]).toEqual([300, 60, 120]);
    const { sandbox, newClient } = await serve({ sandbox: { quotas: { members_write: 2, deposits: 1, orders: 1 } } });
    const client = newClient({ maxRetryAfterMs: 0 });
    sandbox.state.seedMember({ external_member_id: 'rl-0', balances: { USDT: { available: '5' } } });
    await client.members.create({ external_member_id: 'rl-1' });
    await client.members.create({ external_member_id: 'rl-2' });
    const third = await thrownBy(() => client.members.create({ external_member_id: 'rl-3' }));
    expect(isApiError(third, 'rate_limited')).toBe(true);
    // Deposits and orders still have their own room.
    await client.member('rl-1').deposits.declare({ asset: 'USDT', amount: '1' });
    expect(isApiError(await thrownBy(() => client.member('rl-1').deposits.declare({ asset: 'USDT', amount: '1' })), 'rate_limited')).toBe(
      true,
    );
    await client.member('rl-0').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
    expect(sandbox.state.countEffects('deposit.credit')).toBe(1);
    // The window slides on the sandbox clock.
    sandbox.clock.advance(60_001);
    await client.members.create({ external_member_id: 'rl-3' });
  });
});
