/**
 * `recover()` inside another recoverer's lease (src/core/journal/left-open.ts, `MemoryJournal.leased`):
 * the intent it cannot claim is in its report, with when it can be claimed again, and in one
 * `info` line; the intents it left open itself are not counted twice. Over the loopback ledger,
 * with `Date.now` stubbed where the wall clock decides.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryJournal, type IntentFailed, type JournalIntent, type LogFields, type MerchantClientOptions } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, WITHDRAWAL } from '../helpers/wire-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const LEASE = 300_000;

let ledger: Ledger;
let journal: MemoryJournal;
const logs: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
const logger = {
  info: (message: string, fields?: LogFields) => logs.push({ level: 'info', message, fields }),
  warn: (message: string, fields?: LogFields) => logs.push({ level: 'warn', message, fields }),
};

beforeEach(async () => {
  ledger = await startLedger();
  journal = new MemoryJournal();
  logs.length = 0;
  vi.spyOn(Date, 'now').mockReturnValue(T0);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await ledger.close();
});

function client(options: Partial<MerchantClientOptions> = {}) {
  return wireClient(ledger.url, { journal, logger, logLevel: 'info', maxRetries: 0, ...options });
}

/** A withdrawal whose answer was lost: its intent stays open. */
async function lost(): Promise<JournalIntent> {
  ledger.interpose('withdrawal', () => ({ reset: true }));
  const err = (await failure(client().member('ext-1').withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string };
  ledger.interpose('withdrawal', undefined);
  return journal.open().find((i) => i.key === err.idempotencyKey)!;
}

describe("recover() inside another recoverer's lease", () => {
  it('reports the intent it left and when it can be claimed again, in its report and one info line', async () => {
    const intent = await lost();
    // The first restart's recovery meets a 409: the intent stays open, leased to it.
    ledger.interpose('withdrawal', () => apiError(409, 'idempotency_in_progress'));
    const first = await client().recover({ minAgeMs: 0, leaseMs: LEASE });
    const [entry] = first.intents as IntentFailed[];
    expect(entry).toMatchObject({ outcome: 'failed', settled: false, reclaimableAt: T0 + LEASE });
    // Its own open intent is in `intents`, not counted again as another's.
    expect(first.leased).toEqual({ count: 0, intents: [], reclaimableAt: undefined });
    logs.length = 0;

    // A second restart inside that lease: nothing claimed, nothing sent, and the intent accounted for.
    const sent = ledger.received(intent.key).length;
    const second = await client().recover({ minAgeMs: 0 });
    expect(second.intents).toEqual([]);
    expect(ledger.received(intent.key)).toHaveLength(sent);
    const until = second.leased?.reclaimableAt ?? 0;
    // The lease is counted on the journal's clock (monotonic here): what is left of it, from now.
    expect(until).toBeGreaterThan(T0);
    expect(until).toBeLessThanOrEqual(T0 + LEASE);
    expect(second.leased).toEqual({ count: 1, intents: [{ key: intent.key, reclaimableAt: until }], reclaimableAt: until });
    expect(logs).toEqual([
      {
        level: 'info',
        message: "recovery: 1 open intent(s) under another recoverer's lease left to it",
        fields: {
          keys: intent.key,
          reclaimableAt: new Date(until).toISOString(),
          next: 'the recoverer holding them finishes them; if it died, a recover() from reclaimableAt sends them again with their keys',
        },
      },
    ]);
    expect(journal.open().map((i) => i.key)).toEqual([intent.key]);
  });

  it('once the lease has ended the intent is claimed and sent, and nothing is left under lease', async () => {
    const intent = await lost();
    ledger.interpose('withdrawal', () => apiError(409, 'idempotency_in_progress'));
    await client().recover({ minAgeMs: 0, leaseMs: 1 });
    ledger.interpose('withdrawal', undefined);
    // A 1 ms lease on the monotonic clock: over once the next macrotask runs at least 1 ms later.
    const start = performance.now();
    while (performance.now() - start < 5) await new Promise((r) => setTimeout(r, 5));
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([[intent.key, 'resent']]);
    expect(report.leased).toEqual({ count: 0, intents: [], reclaimableAt: undefined });
    expect(journal.open()).toEqual([]);
  });

  it('young intents under a lease are left for later, not counted twice', async () => {
    const intent = await lost();
    await journal.claim({ scope: intent.scope, createdBefore: T0, leaseMs: LEASE, limit: 1 });
    const report = await client().recover({ minAgeMs: 5000 });
    expect(report.leftForLater).toMatchObject({ count: 1, keys: [intent.key] });
    expect(report.leased).toEqual({ count: 0, intents: [], reclaimableAt: undefined });
  });

  it('a journal without leased(): undefined; one whose leased() fails: undefined, with a warn line', async () => {
    const bare = { record: journal.record.bind(journal), settle: journal.settle.bind(journal), claim: journal.claim.bind(journal) };
    expect((await client({ journal: bare }).recover({ minAgeMs: 0 })).leased).toBeUndefined();
    const failing = { ...bare, leased: () => Promise.reject(new Error('timeout')) };
    expect((await client({ journal: failing }).recover({ minAgeMs: 0 })).leased).toBeUndefined();
    expect(logs).toEqual([
      {
        level: 'warn',
        message: "recovery: the journal could not list the intents under another recoverer's lease; the report says nothing of them",
        fields: undefined,
      },
    ]);
  });
});
