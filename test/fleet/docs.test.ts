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
import { TOKEN_KEY } from './helpers/keys.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { cleanupBundles, startWorker, type Worker } from './helpers/workers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DOC = join(HERE, '..', '..', 'docs', 'fleet.md');
const APP = join(HERE, 'fixtures', 'fleet-app.ts');

/** The example as the docs show it: package imports instead of the repository's sources. */
function asPublished(source: string): string {
  return source
    .replace("from '../../../src/index.js';", "from 'merchant-stablecoin';")
    .replace("from '../../../src/webhooks/index.js';", "from 'merchant-stablecoin/webhooks';")
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
      'whileRedisIsDown',
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
      // Resolves when the app has printed both start-up lines, or has exited (then the checks
      // below fail with its output). The test's time limit is the hang guard.
      let onOutput!: () => void;
      const started = new Promise<void>((r) => (onOutput = r));
      const seen = (): void => {
        if (/listening on port \d+/.test(out) && out.includes('prepaid balances')) onOutput();
      };
      app.child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        seen();
      });
      app.child.stderr!.on('data', (b: Buffer) => {
        out += b.toString();
        seen();
      });
      // Every byte it printed, once it has exited and its output streams have closed.
      const output = Promise.all([app.child.stdout!, app.child.stderr!].map((s) => new Promise((r) => s.once('close', r)))).then(() => out);
      void app.exited.then(onOutput);
      await started;
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

      const admin = new Redis(redisServer.url);
      const keys = await admin.keys('*');
      await admin.quit();
      expect(keys.some((k) => TOKEN_KEY.test(k))).toBe(true);
      expect(keys).toContain(`merchant-stablecoin:webhook-event:${env.event_id}`);
      expect(keys.some((k) => /^merchant-stablecoin:rate:\{[0-9a-f]{16}\}:reads$/.test(k))).toBe(true);

      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
      // Processed once: counted in everything it printed, not in what had arrived by some time.
      expect((await output).split(`processing card.activated ${env.event_id}`).length - 1).toBe(1);
    } finally {
      await server.close();
    }
  }, 60_000);
});
