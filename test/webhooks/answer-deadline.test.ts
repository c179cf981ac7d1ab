/**
 * The receiver answers every delivery by `timeoutMs` plus its margin (1 s, never past the
 * service's 10 s), whichever store it has: a store that never answers the claim, a
 * transactional store that ignores the signal it is given, a commit that never answers. What
 * such a store gives after the answer is given back (released, rolled back), never kept.
 */
import { describe, expect, it } from 'vitest';
import { createWebhookHandler, type EventStore, type TransactionalEventStore } from '../../src/webhooks/index.js';
import { envelope, headersFor } from './helpers.js';

const TIMEOUT_MS = 200;
/** Far above timeoutMs + 1 s, well below a wait that never ends: holds on a loaded machine. */
const BOUND_MS = 9000;

const deliver = async (handler: ReturnType<typeof createWebhookHandler>, id = 'evt_1') => {
  const env = { ...envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 }), event_id: id };
  const began = performance.now();
  const res = await handler.handle(JSON.stringify(env), headersFor(env));
  return { ...res, ms: performance.now() - began };
};

/** A promise the test settles. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('a delivery answered by timeoutMs plus the margin, whatever the store waits on', () => {
  it('a plain store whose claim does not answer: 503, onEvent not called; a claim it gives after the answer is released', async () => {
    const claim = deferred<'claimed'>();
    const released: string[] = [];
    let calls = 0;
    const store: EventStore = { claim: () => claim.promise, complete: () => undefined, release: (id) => void released.push(id) };
    const handler = createWebhookHandler({ store, timeoutMs: TIMEOUT_MS, logLevel: 'off', onEvent: () => void calls++ });
    const res = await deliver(handler);
    expect(res).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(res.ms).toBeLessThan(BOUND_MS);
    claim.resolve('claimed');
    await new Promise((r) => setImmediate(r));
    expect(released).toEqual(['evt_1']);
    expect(calls).toBe(0);
  });

  it('a transactional store that ignores its signal, then a commit that never answers: 503 both times; a late claim is rolled back', async () => {
    const late = deferred<void>();
    let hangClaim = true;
    const ended: string[] = [];
    const store: TransactionalEventStore<string> = {
      claim: () => 'claimed',
      complete: () => undefined,
      release: () => undefined,
      claimInTransaction: async (id, options) => {
        expect(options.signal).toBeInstanceOf(AbortSignal);
        if (hangClaim) await late.promise;
        return {
          result: 'claimed',
          transaction: `tx ${id}`,
          commit: () => new Promise<void>(() => undefined),
          rollback: async () => void ended.push(`rollback ${id}`),
        };
      },
    };
    let calls = 0;
    const handler = createWebhookHandler({ store, timeoutMs: TIMEOUT_MS, logLevel: 'off', onEvent: () => void calls++ });
    const first = await deliver(handler, 'evt_a');
    expect(first).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(first.ms).toBeLessThan(BOUND_MS);
    late.resolve();
    await new Promise((r) => setImmediate(r));
    expect(ended).toEqual(['rollback evt_a']);
    expect(calls).toBe(0);

    hangClaim = false;
    const second = await deliver(handler, 'evt_b');
    expect(second).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(second.ms).toBeLessThan(BOUND_MS);
    expect(calls).toBe(1);
  });
});
