/**
 * docs/fleet.md's complete example is test/fleet/fixtures/fleet-app.ts (imports aside), which
 * tsc checks and this test runs against the sandbox simulator and a real redis-server.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { cleanupBundles, startWorker, type Worker } from './helpers/workers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DOC = join(HERE, '..', '..', 'docs', 'fleet.md');
const APP = join(HERE, 'fixtures', 'fleet-app.ts');

/** The example as the docs show it: package imports instead of the repository's sources. */
function asPublished(source: string): string {
  return source
    .replace("from '../../../src/index.js';", "from 'merchant-stablecoin';")
    .replace("from '../../../src/redis/index.js';", "from 'merchant-stablecoin/redis';");
}

describe('docs/fleet.md', () => {
  it('shows exactly the example the tests run (test/fleet/fixtures/fleet-app.ts)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks[0]).toBe(asPublished(readFileSync(APP, 'utf8')));
  });

  it('lists every option of the three stores', () => {
    const doc = readFileSync(DOC, 'utf8');
    for (const option of [
      'lockTtlMs',
      'lockPollMs',
      'lockWaitMs',
      'commandTimeoutMs',
      'retryAfterMs',
      'retentionMs',
      'prefix',
      'fallback',
      'account',
      'quotas',
      'windowMs',
      'marginMs',
      'clock',
    ]) {
      expect(doc).toContain(`\`${option}\``);
    }
  });
});

describe.skipIf(REDIS_SERVER === undefined)('the docs example runs (real redis-server, sandbox over HTTP)', () => {
  let redisServer: RedisServer;
  let app: Worker | undefined;
  beforeAll(async () => {
    redisServer = await startRedisServer();
  });
  afterAll(async () => {
    app?.kill();
    await redisServer?.stop();
    cleanupBundles();
  });

  it('starts, calls the API with the shared token, processes a webhook once and stops on SIGTERM', async () => {
    const sandbox = createSandbox();
    const server = await sandbox.listen();
    try {
      const c = sandbox.credentials;
      app = await startWorker(
        'fleet-app',
        {
          REDIS_URL: redisServer.url,
          PORT: '0',
          WEBHOOK_SECRET: sandbox.webhooks.secret,
          MERCHANT_API_BASE_URL: server.url,
          MERCHANT_API_CLIENT_ID: c.clientId,
          MERCHANT_API_KEY: c.apiKey,
          MERCHANT_API_SIGNING_KEY: c.signingKey,
        },
        { pipeOutput: true },
      );
      let out = '';
      app.child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      app.child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
      const until = Date.now() + 15_000;
      while (!(/listening on port \d+/.test(out) && out.includes('prepaid balances')) && Date.now() < until && app.child.exitCode === null)
        await new Promise((r) => setTimeout(r, 20));
      const port = /listening on port (\d+)/.exec(out)?.[1];
      expect(port, out).toBeDefined();
      expect(out).toContain('prepaid balances:');
      expect(out).not.toContain('Redis unreachable'); // started on Redis, not on the fallback

      sandbox.webhooks.register(`http://127.0.0.1:${port}/webhooks`);
      const env = await sandbox.webhooks.emit(
        'card.activated',
        { object: 'card', id: 'crd_docs', external_member_id: 'ext-1', status: 'active' },
        { duplicates: 1 },
      );
      expect(sandbox.webhooks.deliveries.map((d) => d.status)).toEqual([200, 200]);
      await new Promise((r) => setTimeout(r, 100));
      expect(out.split(`processing card.activated ${env.event_id}`).length - 1).toBe(1);

      const admin = new Redis(redisServer.url);
      const keys = await admin.keys('*');
      await admin.quit();
      expect(keys.some((k) => /^merchant-stablecoin:token:[0-9a-f]{32}$/.test(k))).toBe(true);
      expect(keys).toContain(`merchant-stablecoin:webhook-event:${env.event_id}`);
      expect(keys.some((k) => /^merchant-stablecoin:rate:\{[0-9a-f]{16}\}:reads$/.test(k))).toBe(true);

      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
    } finally {
      await server.close();
    }
  }, 30_000);
});
