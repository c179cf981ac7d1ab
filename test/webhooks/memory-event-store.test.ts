import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import { MemoryEventStore } from '../../src/webhooks/index.js';

function clock(start = 1_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('MemoryEventStore', () => {
  it('claims once, reports in-progress, then duplicate after complete', () => {
    const store = new MemoryEventStore();
    expect(store.claim('evt_1', 1000)).toBe('claimed');
    expect(store.claim('evt_1', 1000)).toBe('in_progress');
    store.complete('evt_1');
    expect(store.claim('evt_1', 1000)).toBe('duplicate');
  });

  it('release lets the next delivery claim again, but never forgets a completed event', () => {
    const store = new MemoryEventStore();
    store.claim('evt_1', 1000);
    store.release('evt_1');
    expect(store.claim('evt_1', 1000)).toBe('claimed');
    store.complete('evt_1');
    store.release('evt_1');
    expect(store.claim('evt_1', 1000)).toBe('duplicate');
  });

  it('an in-progress claim expires after its lease', () => {
    const c = clock();
    const store = new MemoryEventStore({ now: c.now });
    store.claim('evt_1', 500);
    c.advance(499);
    expect(store.claim('evt_1', 500)).toBe('in_progress');
    c.advance(1);
    expect(store.claim('evt_1', 500)).toBe('claimed');
  });

  it('a completed id is remembered for retentionMs', () => {
    const c = clock();
    const store = new MemoryEventStore({ now: c.now, retentionMs: 10_000 });
    store.claim('evt_1', 100);
    store.complete('evt_1');
    c.advance(9_999);
    expect(store.claim('evt_1', 100)).toBe('duplicate');
    c.advance(1);
    expect(store.claim('evt_1', 100)).toBe('claimed');
  });

  it('holds at most maxEntries completed ids, evicting expired ones first, then the oldest completed', () => {
    const c = clock();
    const store = new MemoryEventStore({ now: c.now, maxEntries: 2, retentionMs: 1_000 });
    for (const id of ['evt_a', 'evt_b']) {
      store.claim(id, 100);
      store.complete(id);
    }
    c.advance(10);
    expect(store.claim('evt_a', 100)).toBe('duplicate'); // a duplicate does not refresh evt_a
    store.claim('evt_c', 100);
    store.complete('evt_c'); // evicts evt_a, the oldest completed
    expect(store.size).toBe(2);
    expect(store.claim('evt_b', 100)).toBe('duplicate');
    expect(store.claim('evt_a', 100)).toBe('claimed');
  });

  it('rejects nonsensical settings', () => {
    expect(() => new MemoryEventStore({ maxEntries: 0 })).toThrow(InvalidArgumentError);
    expect(() => new MemoryEventStore({ retentionMs: -1 })).toThrow(InvalidArgumentError);
  });
});
