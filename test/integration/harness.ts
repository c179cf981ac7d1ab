/**
 * Shared plumbing of the integration suites: one "world" (a fresh simulator plus an SDK client
 * wired to it) per test, in either of the two modes the testing kit supports.
 *
 * - `msw`: `setupServer(...mswHandlers(sandbox))` with `onUnhandledRequest: 'error'`, and
 *   `sandbox.client({ via: 'msw' })` (the fetch transport through the global, patched `fetch`).
 *   The msw server is per process, so each world swaps in its own sandbox's handlers.
 * - `server`: `sandbox.listen()` on loopback and a plain `new MerchantClient({ baseUrl })` on the
 *   default undici transport, over real sockets.
 *
 * Balance arithmetic here uses decimal.js directly, not the SDK's or the simulator's helpers, so
 * the invariants are checked by code that shares nothing with either side.
 */
import { Decimal } from 'decimal.js';
import type { SetupServer } from 'msw/node';
import { expect } from 'vitest';
import { MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { createSandbox, type RecordedRequest, type Sandbox, type SandboxOptions, type SandboxServer } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';

/** The two ways a suite reaches the simulator. */
type ModeName = 'msw' | 'server';

/** Client settings every integration client starts from: fast backoff, default retries. */
const FAST_BACKOFF = { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 } as const;

/** A simulator and a client talking to it. */
export interface World {
  readonly mode: ModeName;
  readonly sandbox: Sandbox;
  /** The default client of this world. */
  readonly client: MerchantClient;
  /** Another client on the same simulator (its own token cache and settings). */
  newClient(options?: Partial<MerchantClientOptions>): MerchantClient;
  /** Requests msw saw for this world (msw mode; undefined in server mode). */
  readonly mswSeen: number | undefined;
  /** Closes clients and the server, clears faults. */
  close(): Promise<void>;
}

/** Opens worlds of one mode. */
export interface Mode {
  readonly name: ModeName;
  open(options?: { sandbox?: SandboxOptions; client?: Partial<MerchantClientOptions> }): Promise<World>;
}

/**
 * msw mode. `msw` is the file's `setupServer()` (listening with `onUnhandledRequest: 'error'`);
 * each world replaces its handlers with the new sandbox's, so no request can reach an old one.
 */
export function mswMode(msw: SetupServer): Mode {
  let seen = 0;
  msw.events.on('request:start', () => {
    seen++;
  });
  return {
    name: 'msw',
    async open(options = {}) {
      const sandbox = createSandbox(options.sandbox);
      msw.resetHandlers(...mswHandlers(sandbox));
      const start = seen;
      const clients: MerchantClient[] = [];
      const newClient = (o: Partial<MerchantClientOptions> = {}): MerchantClient => {
        const c = sandbox.client({ via: 'msw', backoff: FAST_BACKOFF, ...options.client, ...o });
        clients.push(c);
        return c;
      };
      const client = newClient();
      return {
        mode: 'msw',
        sandbox,
        client,
        newClient,
        get mswSeen() {
          return seen - start;
        },
        async close() {
          sandbox.faults.clear();
          await Promise.all(clients.map((c) => c.close()));
        },
      };
    },
  };
}

/** Server mode: node:http on loopback, the default undici transport, real sockets. */
export function serverMode(): Mode {
  return {
    name: 'server',
    async open(options = {}) {
      const sandbox = createSandbox(options.sandbox);
      const server: SandboxServer = await sandbox.listen();
      const clients: MerchantClient[] = [];
      const newClient = (o: Partial<MerchantClientOptions> = {}): MerchantClient => {
        // Like sandbox.client(): default clock settings, since moving the simulator's business
        // clock leaves signatures and tokens on real time.
        const c = new MerchantClient({
          baseUrl: server.url,
          ...sandbox.credentials,
          backoff: FAST_BACKOFF,
          ...options.client,
          ...o,
        });
        clients.push(c);
        return c;
      };
      const client = newClient();
      return {
        mode: 'server',
        sandbox,
        client,
        newClient,
        mswSeen: undefined,
        async close() {
          sandbox.faults.clear();
          await Promise.all(clients.map((c) => c.close()));
          await server.close();
        },
      };
    },
  };
}

/** The eight buckets of a balance row (spec: Balance row). */
const EIGHT_BUCKETS = ['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing'] as const;
export type BucketName = (typeof EIGHT_BUCKETS)[number];

/** Sum of the eight buckets of a row, with decimal.js. */
export function sumOfBuckets(row: Readonly<Record<BucketName, string>>): Decimal {
  return EIGHT_BUCKETS.reduce((acc, b) => acc.plus(new Decimal(row[b])), new Decimal(0));
}

/** The eight buckets as plain numbers-as-strings normalised by decimal.js (scale-insensitive). */
function bucketsOf(row: Readonly<Record<BucketName, string>>): Record<BucketName, string> {
  return Object.fromEntries(EIGHT_BUCKETS.map((b) => [b, new Decimal(row[b]).toFixed()])) as Record<BucketName, string>;
}

/** Expected buckets: the given ones, every other bucket 0. */
export function expectBuckets(
  row: Readonly<Record<BucketName, string>>,
  expected: Partial<Record<BucketName, string | Decimal.Value>>,
): void {
  const want = Object.fromEntries(EIGHT_BUCKETS.map((b) => [b, new Decimal(expected[b] ?? 0).toFixed()]));
  expect(bucketsOf(row)).toEqual(want);
}

/**
 * The balance invariant: the sum of the eight buckets plus what left the member equals what was
 * there at the start.
 */
export function expectConserved(
  row: Readonly<Record<BucketName, string>>,
  initialTotal: Decimal.Value,
  leftTheMember: Decimal.Value = 0,
): void {
  expect(sumOfBuckets(row).plus(leftTheMember).toFixed()).toBe(new Decimal(initialTotal).toFixed());
}

/** Writes recorded by the simulator on exactly this path (query included). */
export function attemptsOn(sandbox: Sandbox, method: string, path: string): RecordedRequest[] {
  return sandbox.requests.filter((r) => r.method === method && r.path === path);
}

/**
 * Every attempt carried the same idempotency key and its own nonce and signature: the spec's
 * "A retry keeps the same idempotency key and changes the nonce".
 */
export function expectSameKeyNewNonce(attempts: readonly RecordedRequest[], key: string): void {
  expect(attempts.length).toBeGreaterThan(0);
  for (const a of attempts) {
    expect(a.headers['x-idempotency-key']).toBe(key);
    expect(a.headers['x-nonce']).toMatch(/\S/);
    expect(a.headers['x-signature']).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  }
  expect(new Set(attempts.map((a) => a.headers['x-nonce'])).size).toBe(attempts.length);
  expect(new Set(attempts.map((a) => a.headers['x-signature'])).size).toBe(attempts.length);
}

/** Runs `fn` and returns what it threw (fails the test when it did not throw). */
export async function thrown(fn: () => PromiseLike<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
