/**
 * The `Clock` the limiters and the token throttle read time through: the real one by default,
 * a controllable one in tests. With a manual clock nothing waits on real time, so these counts
 * and orders hold on any machine.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BucketGate } from '../../src/core/limits/bucket-gate.js';
import { MemoryRateLimiter, systemClock } from '../../src/index.js';
import { manualClock, type ManualClock } from '../helpers/time.js';

function track(p: Promise<unknown>): { state: () => string } {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    (e: unknown) => (state = `rejected:${e instanceof Error ? e.message : String(e)}`),
  );
  return { state: () => state };
}

/** Resolves when the next sleeper starts waiting on `clock`. */
function nextSleep(clock: ManualClock): Promise<void> {
  return new Promise((resolve) => {
    let armed = true;
    clock.onSleep(() => {
      if (!armed) return;
      armed = false;
      resolve();
    });
  });
}

/** Lets queued promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('systemClock', () => {
  // On vitest's fake timers: the sleeps below last only as long as the test moves time.
  const HALF_SECOND = 500;
  const A_MINUTE = 60_000;

  it('reads a monotonic clock and waits with setTimeout, both looked up when called', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    expect(systemClock.now()).toBe(1_000_000);
    const slept = track(systemClock.sleep(HALF_SECOND));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(HALF_SECOND - 1);
    expect(slept.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(slept.state()).toBe('resolved');
    expect(systemClock.now()).toBe(1_000_000 + HALF_SECOND);
  });

  it('a step of the wall clock, back or forward, does not move it', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const wall = vi.spyOn(Date, 'now');
    for (const step of [-3_600_000, 7_200_000]) {
      wall.mockReturnValue(1_000_000 + step);
      expect(Date.now()).toBe(1_000_000 + step);
      expect(systemClock.now()).toBe(1_000_000);
    }
    vi.setSystemTime(0);
    expect(systemClock.now()).toBe(1_000_000);
    wall.mockRestore();
  });

  it('an aborted sleep rejects with the reason at once and leaves no timer', async () => {
    vi.useFakeTimers();
    const c = new AbortController();
    const slept = track(systemClock.sleep(A_MINUTE, c.signal));
    c.abort(new Error('stop'));
    await flush();
    expect(slept.state()).toBe('rejected:stop');
    expect(vi.getTimerCount()).toBe(0);
    await expect(systemClock.sleep(A_MINUTE, AbortSignal.abort(new Error('before')))).rejects.toThrow('before');
    await expect(systemClock.sleep(0)).resolves.toBeUndefined();
  });
});

describe('MemoryRateLimiter on a manual clock', () => {
  it('counts windows and wakes its queue on the clock it is given, never on a real timer', async () => {
    vi.useFakeTimers(); // any real timer the limiter set would show in the count
    const clock = manualClock();
    const l = new MemoryRateLimiter({ clock, quotas: { orders: 2 }, windowMs: 60_000, marginMs: 0 });
    const order: number[] = [];
    const sleeping = nextSleep(clock);
    const all = Array.from({ length: 5 }, (_, i) => l.acquire('orders').then(() => order.push(i)));
    await sleeping;
    await flush();
    expect(order).toEqual([0, 1]);
    expect(l.usage('orders')).toMatchObject({ used: 2, inFlight: 2, queued: 3 });
    expect(vi.getTimerCount()).toBe(0);
    expect(clock.nextWake).toBe(clock.now() + 60_000);

    clock.advance(59_999);
    await flush();
    expect(order).toEqual([0, 1]);
    clock.advance(1);
    await flush();
    expect(order).toEqual([0, 1, 2, 3]);
    // The two just admitted settle 10 s later: their slots are held a window from then.
    clock.advance(10_000);
    l.settle('orders');
    l.settle('orders');
    await flush();
    expect(clock.nextWake).toBe(clock.now() + 60_000);
    clock.advance(59_999);
    await flush();
    expect(order).toEqual([0, 1, 2, 3]);
    clock.advance(1);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(clock.sleeping).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a pause lasts its length on the clock; an abort takes the waiter and its wake-up away', async () => {
    const clock = manualClock();
    const l = new MemoryRateLimiter({ clock, quotas: { reads: 5 } });
    l.pause('reads', 7000);
    expect(l.usage('reads').pausedForMs).toBe(7000);
    const c = new AbortController();
    const aborted = track(l.acquire('reads', c.signal));
    const kept = track(l.acquire('reads'));
    await flush();
    expect(clock.sleeping).toBe(1);
    c.abort(new Error('gave up'));
    await flush();
    expect(aborted.state()).toBe('rejected:gave up');
    expect(l.usage('reads').queued).toBe(1);
    clock.advance(6999);
    await flush();
    expect(kept.state()).toBe('pending');
    clock.advance(1);
    await flush();
    expect(kept.state()).toBe('resolved');
    expect(l.usage('reads')).toMatchObject({ used: 1, queued: 0, pausedForMs: 0 });
    expect(clock.sleeping).toBe(0);
  });
});

describe('the token endpoint window on a manual clock (every exchange attempt takes a place)', () => {
  const admitToken = async (gate: BucketGate, signal?: AbortSignal): Promise<boolean> =>
    (await gate.admit('token', () => signal)).slotTaken;

  it('admits at most 20 token attempts in any minute of its clock: the 21st waits until the oldest is a minute old', async () => {
    const clock = manualClock();
    const gate = new BucketGate(undefined, clock);
    const first = clock.now() + 1000;
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect(await admitToken(gate)).toBe(false); // the token bucket never takes a limiter slot
    }
    expect(gate.tokenAttemptsLastMinute).toBe(20);

    const sleeping = nextSleep(clock);
    const t21 = track(admitToken(gate));
    await sleeping;
    expect(clock.nextWake).toBe(first + 60_000);
    clock.set(first + 59_999);
    await flush();
    expect(t21.state()).toBe('pending');
    clock.advance(1);
    await flush();
    expect(t21.state()).toBe('resolved');
    // The oldest left the minute; the other 19 and the new one are still in it.
    expect(gate.tokenAttemptsLastMinute).toBe(20);
  });

  it('a caller aborting while it waits stops waiting at once and takes no place', async () => {
    const clock = manualClock();
    const gate = new BucketGate(undefined, clock);
    for (let i = 0; i < 20; i++) await admitToken(gate);
    const sleeping = nextSleep(clock);
    const c = new AbortController();
    const waiting = track(admitToken(gate, c.signal));
    await sleeping;
    c.abort(new Error('caller gave up'));
    await flush();
    expect(waiting.state()).toBe('rejected:caller gave up');
    expect(clock.sleeping).toBe(0);
    clock.advance(60_000);
    await flush();
    expect(gate.tokenAttemptsLastMinute).toBe(0);
  });
});
