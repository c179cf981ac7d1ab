/**
 * What a test's request interceptor that cannot let a request out is reported as: one sentence
 * naming the fix when msw 3 cannot run on this Node.js (no advice about request handlers, which
 * would not help), and a refusal whose reason ends without a full stop still reads as two
 * sentences. The interceptor is stood in for by a patched global `fetch` and the mark msw leaves
 * on `globalThis`; nothing reaches the network.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallInterruptedError } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';

/** What @mswjs/interceptors leaves on globalThis while its fetch interceptor is applied (msw 2). */
const FETCH_INTERCEPTOR = Symbol.for('fetch-interceptor');
const g = globalThis as Record<symbol, unknown>;
/** Never listened on: every request must stop at the patched fetch. */
const BASE = 'http://127.0.0.1:9';

afterEach(() => {
  delete g[FETCH_INTERCEPTOR];
  vi.unstubAllGlobals();
});

describe('a request interceptor that cannot let the request out', () => {
  it('msw 3 on Node.js 20 (Promise.withResolvers missing): one sentence that names the fix, never retried', async () => {
    const fetched = vi.fn(() =>
      Promise.reject(new TypeError('fetch failed', { cause: new TypeError('Promise.withResolvers is not a function') })),
    );
    vi.stubGlobal('fetch', fetched);
    g[FETCH_INTERCEPTOR] = {};
    const client = wireClient(BASE, { maxRetries: 3 });
    try {
      const err = await failure(client.assets.list());
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect((err as Error).message).toBe(
        'The request interceptor in front of fetch (msw) cannot run here, so POST /v1/connect/token was not sent: msw 3 needs Node.js 22.12 or later (Promise.withResolvers is not a function), and msw 2 runs on older Node.js lines.',
      );
      expect((err as Error).message).not.toContain('request handler');
      expect(fetched).toHaveBeenCalledTimes(1);
    } finally {
      await client.close();
    }
  });

  it('a refusal whose reason has no full stop gets one before the advice', async () => {
    // msw answers 500 with the thrown error as the body when its onUnhandledRequest callback throws.
    const body = JSON.stringify({ name: 'Error', message: 'no handler for this request' });
    const fetched = vi.fn(() => Promise.resolve(new Response(body, { status: 500, headers: { 'content-type': 'application/json' } })));
    vi.stubGlobal('fetch', fetched);
    g[FETCH_INTERCEPTOR] = {};
    const client = wireClient(BASE, { maxRetries: 3 });
    try {
      const err = await failure(client.assets.list());
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect((err as Error).message).toBe(
        'The request interceptor in front of fetch (msw) refused POST /v1/connect/token before it was sent: no handler for this request (thrown inside the request interceptor: msw answered 500 "Unhandled Exception"). Add a request handler for it, or let it through (onUnhandledRequest).',
      );
      expect(fetched).toHaveBeenCalledTimes(1);
    } finally {
      await client.close();
    }
  });
});
