import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TERMINAL_STATES, StatusTracker, eventResourceKey, parseEvent } from '../../src/webhooks/index.js';
import { envelope, headersFor } from './helpers.js';

describe('StatusTracker.apply (versioned)', () => {
  it('moves only to a higher version', () => {
    const t = new StatusTracker();
    expect(t.apply('card:crd_1', 'unactivated', 1)).toBe(true);
    expect(t.apply('card:crd_1', 'active', 3)).toBe(true);
    expect(t.apply('card:crd_1', 'frozen', 2)).toBe(false);
    expect(t.apply('card:crd_1', 'frozen', 3)).toBe(false);
    expect(t.get('card:crd_1')).toMatchObject({ status: 'active', statusVersion: 3, source: 'event', terminal: false });
  });

  it('ends at the highest version whatever the arrival order', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 30 })
          .chain((versions) => fc.tuple(fc.constant(versions), fc.shuffledSubarray(versions, { minLength: versions.length }))),
        ([versions, order]) => {
          const t = new StatusTracker();
          for (const v of order) t.apply('card:crd_1', `s${v}`, v);
          const top = Math.max(...versions);
          expect(t.get('card:crd_1')).toMatchObject({ status: `s${top}`, statusVersion: top });
        },
      ),
    );
  });

  it('does not leave a terminal state, and keeps refusing older events', () => {
    const t = new StatusTracker();
    t.applyPolled('remittance:rmt_1', 'completed');
    expect(t.apply('remittance:rmt_1', 'processing', 5)).toBe(false);
    expect(t.get('remittance:rmt_1')).toMatchObject({ status: 'completed', statusVersion: 5, terminal: true });
    expect(t.apply('remittance:rmt_1', 'processing', 4)).toBe(false);
  });

  it('rejects a non-integer version', () => {
    expect(() => new StatusTracker().apply('card:crd_1', 'active', 1.5)).toThrow(/statusVersion/);
  });

  it('applies parsed events by <object>:<id>', () => {
    const env = envelope('card.status.updated', { object: 'card', id: 'crd_9', status: 'frozen', status_version: 7 });
    const event = parseEvent(JSON.stringify(env), headersFor(env));
    const t = new StatusTracker();
    expect(eventResourceKey(event)).toBe('card:crd_9');
    expect(t.applyEvent(event)).toBe(true);
    expect(t.applyEvent(event)).toBe(false);
    expect(t.get('card:crd_9')?.status).toBe('frozen');
  });
});

describe('StatusTracker.applyPolled (no version)', () => {
  it('never moves a terminal state back', () => {
    const t = new StatusTracker();
    t.apply('remittance:rmt_1', 'refunded', 4);
    expect(t.applyPolled('remittance:rmt_1', 'needs_reconfirm')).toBe(false);
    expect(t.applyPolled('remittance:rmt_1', 'completed')).toBe(false);
    expect(t.get('remittance:rmt_1')?.status).toBe('refunded');
    t.apply('exchange_order:x', 'executed', 0);
    expect(t.applyPolled('exchange_order:x', 'pending')).toBe(false);
  });

  it('ignores a poll sent before the last change (late), accepts a newer one', () => {
    let now = 100;
    const t = new StatusTracker({ now: () => now });
    const requestedAt = now;
    now = 200;
    t.apply('card:crd_1', 'active', 2);
    expect(t.applyPolled('card:crd_1', 'unactivated', { requestedAt })).toBe(false);
    expect(t.applyPolled('card:crd_1', 'frozen', { requestedAt: 250 })).toBe(true);
    // The version baseline stays: an older event still cannot move it.
    expect(t.apply('card:crd_1', 'active', 2)).toBe(false);
    expect(t.get('card:crd_1')).toMatchObject({ status: 'frozen', statusVersion: 2, source: 'poll' });
  });

  it('card states are not terminal by default (the spec does not say), but can be configured', () => {
    const loose = new StatusTracker();
    loose.applyPolled('card:crd_1', 'closed');
    expect(loose.get('card:crd_1')?.terminal).toBe(false);
    const strict = new StatusTracker({ terminalStates: { card: ['closed', 'expired'] } });
    strict.applyPolled('card:crd_1', 'closed');
    expect(strict.applyPolled('card:crd_1', 'active')).toBe(false);
    expect(strict.isTerminal('remittance:r', 'failed')).toBe(true);
  });

  it('defaults list only what the spec calls terminal', () => {
    expect(DEFAULT_TERMINAL_STATES).toEqual({ remittance: ['completed', 'failed', 'canceled', 'refunded'], exchange_order: ['executed'] });
    expect(new StatusTracker().isTerminal('constructor:x', 'anything')).toBe(false);
  });

  it('holds at most maxEntries resources, forgetting the one updated least recently', () => {
    const t = new StatusTracker({ maxEntries: 2 });
    t.apply('card:a', 'active', 1);
    t.apply('card:b', 'active', 1);
    // A refused (older) event does not count as an update; an applied one does.
    expect(t.apply('card:a', 'frozen', 2)).toBe(true);
    t.apply('card:c', 'active', 1); // evicts card:b, the least recently updated
    expect(t.size).toBe(2);
    expect(t.get('card:b')).toBeUndefined();
    expect(t.get('card:a')).toMatchObject({ status: 'frozen', statusVersion: 2 });
    // A forgotten resource takes its next status as its first (documented).
    expect(t.apply('card:b', 'unactivated', 0)).toBe(true);
    expect(t.get('card:a')).toBeUndefined();
    expect(t.get('card:c')).toBeDefined();
    expect(t.size).toBe(2);
  });

  it('holds 100 000 resources by default, and refuses a bound that is not a positive integer', () => {
    const t = new StatusTracker();
    for (let i = 0; i <= 100_000; i++) t.apply(`card:${i}`, 'active', 1);
    expect(t.size).toBe(100_000);
    expect(t.get('card:0')).toBeUndefined();
    expect(t.get('card:1')).toBeDefined();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new StatusTracker({ maxEntries: bad })).toThrow(expect.objectContaining({ argument: 'maxEntries' }));
    }
  });
});
