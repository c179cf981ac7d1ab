/**
 * Fleet mode across real processes: each instance is a separate Node process (fixtures under
 * ./fixtures) with its own Redis connection, talking to the sandbox simulator over HTTP and to a
 * real redis-server.
 */
import { request } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { listen } from '../../src/testing/server.js';
import { TOKEN_KEY } from './helpers/keys.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { cleanupBundles, driveSharedClock, prepare, startWorker, type Worker } from './helpers/workers.js';

function credentialsEnv(sandbox: Sandbox, baseUrl: string, redisUrl: string): Record<string, string> {
  const c = sandbox.credentials;
  return {
    REDIS_URL: redisUrl,
    MERCHANT_API_BASE_URL: baseUrl,
    MERCHANT_API_CLIENT_ID: c.clientId,
    MERCHANT_API_KEY: c.apiKey,
    MERCHANT_API_SIGNING_KEY: c.signingKey,
  };
}

describe.skipIf(REDIS_SERVER === undefined)('fleet mode across processes (real redis-server, sandbox over HTTP)', () => {
  let redisServer: RedisServer;
  let admin: Redis;
  const workers: Worker[] = [];
  const spawn = async (name: string, env: Record<string, string>): Promise<Worker> => {
    const w = await startWorker(name, env);
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    redisServer = await startRedisServer();
    admin = new Redis(redisServer.url);
    await Promise.all([prepare('token-worker'), prepare('burst-worker'), prepare('receiver')]);
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) w.kill();
    await admin?.quit().catch(() => undefined);
    await redisServer?.stop();
    cleanupBundles();
  });

  it('20 processes starting at once make exactly one token exchange', async () => {
    const sandbox = createSandbox();
    const server = await sandbox.listen();
    try {
      const env = credentialsEnv(sandbox, server.url, redisServer.url);
      const spawned = Date.now();
      const fleet = await Promise.all(Array.from({ length: 20 }, () => spawn('token-worker', env)));
      await Promise.all(fleet.map((w) => w.next('ready')));
      const startupMs = Date.now() - spawned;
      // All 20 start their first call in the same instant: each needs a token and has none.
      for (const w of fleet) w.send({ type: 'go' });
      const done = await Promise.all(fleet.map((w) => w.next('done')));

      expect(done.every((d) => d['ok'] === true)).toBe(true);
      expect(sandbox.stats.tokenExchanges).toBe(1);
      expect(sandbox.stats.tokenExchangeAttempts).toBe(1);
      const reads = sandbox.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/assets'));
      expect(reads).toHaveLength(20);
      expect(new Set(reads.map((r) => r.headers['x-auth-token'])).size).toBe(1);

      // Key names carry no credential; the token is stored under one hashed key.
      const keys = await admin.keys('*');
      const { clientId, apiKey, signingKey } = sandbox.credentials;
      for (const secret of [clientId, apiKey, signingKey]) expect(keys.join(' ')).not.toContain(secret);
      expect(keys.filter((k) => TOKEN_KEY.test(k))).toHaveLength(1);
      console.log(
        `[fleet] 20 processes → ${sandbox.stats.tokenExchanges} token exchange; slowest first call ${Math.max(...done.map((d) => Number(d['ms'])))} ms (process start-up ${startupMs} ms)`,
      );
      await Promise.all(fleet.map((w) => w.exited));
    } finally {
      await server.close();
    }
  }, 240_000);

  it('the same event delivered to 5 receivers (again, at once, and after a failure) is processed once', async () => {
    const sandbox = createSandbox({ webhooks: { backoffMs: 20 } });
    const receivers = await Promise.all(
      Array.from({ length: 5 }, () => spawn('receiver', { REDIS_URL: redisServer.url, WEBHOOK_SECRET: sandbox.webhooks.secret })),
    );
    const urls = (await Promise.all(receivers.map((r) => r.next('ready')))).map((m) => String(m['url']));
    for (const url of urls) sandbox.webhooks.register(url);
    const processed = (eventId: string): number =>
      receivers.reduce((n, r) => n + r.messages.filter((m) => m.type === 'processed' && m['eventId'] === eventId).length, 0);
    // Every delivery has been answered, and a receiver reports before it answers: once each has
    // answered a sync (after its earlier messages), every report it made is here.
    const settle = async (eventId: string): Promise<number> => {
      await Promise.all(receivers.map((r) => r.sync()));
      return processed(eventId);
    };

    try {
      // 1. The simulator delivers the event to all 5 receivers, 3 copies each (at least once).
      const first = await sandbox.webhooks.emit(
        'card.activated',
        { object: 'card', id: 'crd_fleet_1', external_member_id: 'ext-1', status: 'active' },
        { duplicates: 2 },
      );
      const firstDeliveries = sandbox.webhooks.deliveries.filter((d) => d.event_id === first.event_id);
      expect(firstDeliveries).toHaveLength(15);
      expect(firstDeliveries.every((d) => d.ok)).toBe(true);
      expect(await settle(first.event_id)).toBe(1);

      // 2. The same bytes (a new event, signed as the simulator signs) hit all 5 receivers at once, 3 times each.
      const race = { ...(JSON.parse(firstDeliveries[0]!.body) as Record<string, unknown>), event_id: `evt_race_${Date.now()}` };
      const raceBody = JSON.stringify(race);
      const headers = {
        'content-type': 'application/json',
        'z-event-id': race.event_id,
        'z-event-type': 'card.activated',
        'z-signature': sandbox.webhooks.sign(raceBody),
      };
      const statuses = await Promise.all(urls.flatMap((u) => [0, 1, 2].map(() => post(u, raceBody, headers))));
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
      // Those answered 409 (in progress) are redelivered later, as the service would.
      const redelivered = await Promise.all(urls.map((u) => post(u, raceBody, headers)));
      expect(redelivered.every((s) => s === 200)).toBe(true);
      expect(await settle(race.event_id)).toBe(1);

      // 3. The receiver that claims first fails: it releases the claim, the redelivery is processed.
      const failing = await sandbox.webhooks.emit('card.activated', {
        object: 'card',
        id: 'fail-once-1',
        external_member_id: 'ext-1',
        status: 'active',
      });
      const failingDeliveries = sandbox.webhooks.deliveries.filter((d) => d.event_id === failing.event_id);
      expect(failingDeliveries.map((d) => d.status)).toEqual([500, 200, 200, 200, 200, 200]);
      expect(await settle(failing.event_id)).toBe(1);
      const failures = receivers.reduce(
        (n, r) => n + r.messages.filter((m) => m.type === 'failed' && m['eventId'] === failing.event_id).length,
        0,
      );
      expect(failures).toBe(1);

      console.log(
        `[fleet] 5 receivers: emitted ×3 copies → processed ${processed(first.event_id)}; 15 concurrent posts (${statuses.filter((s) => s === 409).length}×409 in progress) → processed ${processed(race.event_id)}; failed then redelivered → processed ${processed(failing.event_id)}`,
      );
    } finally {
      for (const r of receivers) r.send({ type: 'stop' });
      await Promise.all(receivers.map((r) => r.exited));
    }
  }, 240_000);

  it('a burst of 500 writes from 10 processes never draws a 429 and stays within the orders quota per simulated minute', async () => {
    // The simulator and the workers' Redis limiter share one clock, which the test moves only
    // while no write is between a worker's limiter and the simulator: each write is counted by
    // the fleet and arrives at the same instant of that clock, on any machine. Time jumps from
    // one wake-up to the next, so two simulated minutes pass in a few real seconds.
    const QUOTA = 240;
    const WRITES = 500;
    const PROCESSES = 10;
    const start = Date.now();
    let simNow = start;
    const sandbox = createSandbox({ quotas: { orders: QUOTA }, now: () => simNow });
    let status429 = 0;
    const server = await listen(async (req) => {
      const res = await sandbox.handle(req);
      if (res.status === 429) status429++;
      return res;
    });
    try {
      const env = {
        ...credentialsEnv(sandbox, server.url, redisServer.url),
        ORDERS_QUOTA: String(QUOTA),
        WINDOW_MS: '60000',
        CLOCK_START: String(start),
        WRITES: String(WRITES / PROCESSES),
      };
      const fleet = await Promise.all(Array.from({ length: PROCESSES }, () => spawn('burst-worker', env)));
      await Promise.all(fleet.map((w) => w.next('ready')));
      const clock = driveSharedClock(fleet, start, (ms) => (simNow = ms));
      const started = Date.now();
      for (const w of fleet) w.send({ type: 'go' });
      // A hang guard, not a speed bound.
      const done = await Promise.all(fleet.map((w) => w.next('done')));
      const realMs = Date.now() - started;

      const ok = done.reduce((n, d) => n + Number(d['ok']), 0);
      const clientSide429 = done.reduce((n, d) => n + Number(d['rateLimited']), 0);
      const errors = done.flatMap((d) => d['errors'] as string[]);
      expect(errors).toEqual([]);
      expect(ok).toBe(WRITES);
      expect(clientSide429).toBe(0);
      expect(status429).toBe(0);

      // On the simulator's clock: never more than QUOTA writes in any 60-second window.
      const at = sandbox.requests
        .filter((r) => r.method === 'POST' && r.path === '/v1/sandbox/faucet')
        .map((r) => r.at)
        .sort((a, b) => a - b);
      expect(at).toHaveLength(WRITES);
      let maxInWindow = 0;
      for (let i = 0, j = 0; i < at.length; i++) {
        while (at[i]! - at[j]! >= 60_000) j++;
        maxInWindow = Math.max(maxInWindow, i - j + 1);
      }
      expect(maxInWindow).toBeLessThanOrEqual(QUOTA);
      // The limiter did have to hold writes back: 500 at 240 a minute span at least two minutes.
      const spanSimS = (at[at.length - 1]! - at[0]!) / 1000;
      expect(spanSimS).toBeGreaterThanOrEqual(120);
      expect(sandbox.stats.tokenExchanges).toBe(1);
      console.log(
        `[fleet] burst: ${WRITES} writes from ${PROCESSES} processes, orders quota ${QUOTA}/simulated min → ${ok} ok, ${status429} × 429, max ${maxInWindow} in any simulated minute, spread over ${spanSimS.toFixed(0)} simulated s (${((clock.now() - start) / 1000).toFixed(0)} s of shared clock, ${realMs} ms real), ${sandbox.stats.tokenExchanges} token exchange`,
      );
      await Promise.all(fleet.map((w) => w.exited));
    } finally {
      await server.close();
    }
  }, 240_000);
});

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}
