/**
 * One scenario for every shipped journal: a withdrawal's answer is lost, a first recovery meets
 * 409 `idempotency_in_progress` and leaves the intent open under its lease, a second `recover()`
 * inside that lease sends nothing and reports the intent with when it can be claimed, and once
 * the lease has ended (`endLeases`, on the journal's own clock) a third sends it, once.
 */
import { expect } from 'vitest';
import type { IntentJournal, LogFields } from '../../../src/index.js';
import { failure, wireClient } from '../../helpers/client.js';
import { apiError, WITHDRAWAL } from '../../helpers/wire-server.js';
import { startLedger } from './ledger.js';

const LEASE = 300_000;

export async function recoverInsideLease(journal: IntentJournal, endLeases: () => Promise<void>): Promise<void> {
  const ledger = await startLedger();
  try {
    const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
    const logger = {
      info: (message: string, fields?: LogFields) => lines.push({ message, fields }),
      warn: (message: string, fields?: LogFields) => lines.push({ message, fields }),
    };
    const client = () => wireClient(ledger.url, { journal, logger, logLevel: 'info', maxRetries: 0 });
    ledger.interpose('withdrawal', () => ({ reset: true }));
    const { idempotencyKey: key } = (await failure(client().member('ext-1').withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string };
    ledger.interpose('withdrawal', () => apiError(409, 'idempotency_in_progress'));
    const first = await client().recover({ minAgeMs: 0, leaseMs: LEASE });
    expect(first.intents).toMatchObject([{ outcome: 'failed', settled: false }]);
    expect(first.leased).toEqual({ count: 0, intents: [], reclaimableAt: undefined });
    ledger.interpose('withdrawal', undefined);

    // A restart inside the lease: nothing sent, the intent named with the end of the lease.
    const sent = ledger.received(key).length;
    lines.length = 0;
    const before = Date.now();
    const second = await client().recover({ minAgeMs: 0 });
    const after = Date.now();
    expect(second.intents).toEqual([]);
    expect(ledger.received(key)).toHaveLength(sent);
    const until = second.leased?.reclaimableAt ?? 0;
    expect(until).toBeGreaterThan(before);
    expect(until).toBeLessThanOrEqual(after + LEASE + 1);
    expect(second.leased).toEqual({ count: 1, intents: [{ key, reclaimableAt: until }], reclaimableAt: until });
    expect(lines.filter((l) => l.message.includes('lease'))).toEqual([
      {
        message: "recovery: 1 open intent(s) under another recoverer's lease left to it",
        fields: expect.objectContaining({ keys: key, reclaimableAt: new Date(until).toISOString() }),
      },
    ]);

    await endLeases();
    const third = await client().recover({ minAgeMs: 0 });
    expect(third.intents.map((r) => [r.intent.key, r.outcome])).toEqual([[key, 'resent']]);
    expect(third.leased).toEqual({ count: 0, intents: [], reclaimableAt: undefined });
    expect(ledger.effects(key)).toBe(1);
  } finally {
    await ledger.close();
  }
}
