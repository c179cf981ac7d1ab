/**
 * Server mode for the simulator's own behaviour tests: `sandbox.listen()` on loopback and a plain
 * `MerchantClient` on the default undici transport, so every assertion is about what went over a
 * real socket and what the SDK's caller got. One world per test, closed after it.
 */
import { afterEach } from 'vitest';
import { MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxOptions, type SandboxServer } from '../../src/testing/index.js';

/** A served simulator and a client on it. */
export interface Served {
  readonly sandbox: Sandbox;
  readonly server: SandboxServer;
  /** A client with the sandbox credentials and fast backoff. */
  readonly client: MerchantClient;
  /** Another client on the same server (its own token); options override the defaults. */
  newClient(options?: Partial<MerchantClientOptions>): MerchantClient;
}

/** Options of one served world. */
export interface ServeOptions {
  readonly sandbox?: SandboxOptions;
  readonly client?: Partial<MerchantClientOptions>;
}

/** Test backoff: a retry never waits seconds. */
const FAST_BACKOFF = { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 } as const;

/**
 * Registers the cleanup of this file's worlds (`afterEach`) and returns the opener. Call once at
 * the top level of a test file.
 */
export function servedWorlds(): (options?: ServeOptions) => Promise<Served> {
  const open: Array<{ clients: MerchantClient[]; server: SandboxServer }> = [];
  afterEach(async () => {
    for (const w of open.splice(0)) {
      await Promise.all(w.clients.map((c) => c.close()));
      await w.server.close();
    }
  });
  return async (options = {}) => {
    const sandbox = createSandbox(options.sandbox);
    const server = await sandbox.listen();
    const clients: MerchantClient[] = [];
    open.push({ clients, server });
    const newClient = (o: Partial<MerchantClientOptions> = {}): MerchantClient => {
      const c = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials, backoff: FAST_BACKOFF, ...options.client, ...o });
      clients.push(c);
      return c;
    };
    return { sandbox, server, client: newClient(), newClient };
  };
}

/** What a call threw or rejected with (fails the test when it resolved instead). */
export async function thrownBy(call: () => PromiseLike<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to throw, and it resolved');
}
