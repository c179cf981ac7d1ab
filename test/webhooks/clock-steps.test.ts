/**
 * Issue 23, point 2: the receiver's leases and deadline run on the monotonic clock. A wall-clock
 * step (NTP, a VM resumed from a snapshot) is simulated by stubbing `Date.now`, never by sleeping:
 * a step forward while `onEvent` runs must not expire the claim (the redelivery would run beside
 * it), and a step backward inside an async `verify` must not move the handler's own deadline.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler, MemoryEventStore, type WebhookEventContext } from '../../src/webhooks/index.js';
import { envelope, headersFor } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const HOUR = 3_600_000;
const card = () => envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 });

describe('a forward wall-clock step while onEvent runs', () => {
  it('does not expire the default store’s claim: the redelivery is answered 409 and onEvent runs once', async () => {
    // Spied before the receiver exists, so that a clock read however it was captured sees the step.
    const wallClock = vi.spyOn(Date, 'now');
    const env = card();
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    // Default claimTtlMs (60 s) and store (MemoryEventStore).
    const handler = createWebhookHandler({
      logger: {},
      onEvent: async () => {
        runs++;
        started();
        await gate;
      },
    });
    const first = handler.handle(JSON.stringify(env), headersFor(env));
    await running;
    wallClock.mockReturnValue(Date.now() + 2 * 60_000);

    const redelivery = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(redelivery).toMatchObject({ status: 409, outcome: 'in_progress' });
    expect(runs).toBe(1);

    finish();
    expect(await first).toMatchObject({ status: 200, outcome: 'processed' });
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(runs).toBe(1);
  });
});

describe('MemoryEventStore leases', () => {
  it('a lease lasts its length on the monotonic clock, whichever way the wall clock steps', () => {
    const perf = performance.now();
    const monotonic = vi.spyOn(performance, 'now').mockReturnValue(perf);
    const wall = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1));
    const store = new MemoryEventStore();
    expect(store.claim('evt_fwd', 500)).toBe('claimed');
    expect(store.claim('evt_back', 500)).toBe('claimed');

    // Two minutes forward on the wall clock: both leases still hold.
    wall.mockReturnValue(Date.UTC(2026, 0, 1) + 2 * 60_000);
    expect(store.claim('evt_fwd', 500)).toBe('in_progress');
    // An hour back on the wall clock, and the lease's 500 ms pass: it expires on time.
    wall.mockReturnValue(Date.UTC(2026, 0, 1) - HOUR);
    monotonic.mockReturnValue(perf + 500);
    expect(store.claim('evt_back', 500)).toBe('claimed');
  });

  it('a completed id is kept for its retention on the monotonic clock, not the wall clock', () => {
    const perf = performance.now();
    const monotonic = vi.spyOn(performance, 'now').mockReturnValue(perf);
    const wall = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1));
    const store = new MemoryEventStore({ retentionMs: 10_000 });
    store.claim('evt_1', 100);
    store.complete('evt_1');
    wall.mockReturnValue(Date.UTC(2026, 0, 1) + 365 * 24 * HOUR);
    expect(store.claim('evt_1', 100)).toBe('duplicate');
    monotonic.mockReturnValue(perf + 10_000);
    expect(store.claim('evt_1', 100)).toBe('claimed');
  });
});

describe('a backward wall-clock step inside an async verify', () => {
  it('leaves the handler’s deadline where it was: the delivery is answered 503 at timeoutMs, and the context’s deadline is on the stepped clock', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const TIMEOUT = 2000;
    const wall = Date.now();
    const env = card();
    let context: WebhookEventContext | undefined;
    const handler = createWebhookHandler({
      logger: {},
      timeoutMs: TIMEOUT,
      verify: async () => {
        await Promise.resolve();
        // The step happens while verify is under way (an async key fetch, say).
        vi.spyOn(Date, 'now').mockReturnValue(wall - HOUR);
        return true;
      },
      onEvent: (_event, ctx) => {
        context = ctx;
        // Never finishes on its own: only the handler's bound ends the delivery.
        return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      },
    });
    let settled = false;
    const answer = handler.handle(JSON.stringify(env), headersFor(env)).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(TIMEOUT - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await answer).toMatchObject({ status: 503, outcome: 'timeout' });
    // What onEvent was told: the wall clock it runs under, plus the time left on the bound.
    expect(context!.deadline).toBe(wall - HOUR + TIMEOUT);
    expect(context!.signal.aborted).toBe(true);
  });
});
