/**
 * The helpers that let strict TypeScript read what the SDK hands back without casts, over real
 * sockets: `resentWithdrawalOrder` (a recovered withdrawal's order), `hasCallState` (an error's
 * call state) and `looseFields` (a loosely typed answer's fields).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  MemoryJournal,
  MerchantClient,
  hasCallState,
  looseFields,
  resentWithdrawalOrder,
  type RecoveredIntent,
  type WithdrawalOrder,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { WITHDRAWAL } from '../helpers/wire-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
let ledger: Ledger;
let journal: MemoryJournal;

beforeEach(async () => {
  ledger = await startLedger();
  journal = new MemoryJournal();
});
afterEach(() => ledger.close());

const client = (maxRetries?: number) => wireClient(ledger.url, { journal, ...(maxRetries === undefined ? {} : { maxRetries }) });

describe('resentWithdrawalOrder', () => {
  it('gives the order a resent withdrawal created, and undefined for a resent top-up', async () => {
    ledger.interpose('withdrawal', () => ({ reset: true }));
    ledger.interpose('topup', () => ({ reset: true }));
    const lost = client(0).member(MEMBER);
    const withdrawal = await failure(lost.withdrawals.create(WITHDRAWAL));
    const topup = await failure(lost.cards.topUp('crd_1', { amount: '5.00' }));
    expect([withdrawal, topup]).toMatchObject([{ call: { sent: 'maybe' } }, { call: { sent: 'maybe' } }]);
    ledger.interpose('withdrawal', undefined);
    ledger.interpose('topup', undefined);

    const seen: Array<[RecoveredIntent['outcome'], WithdrawalOrder | undefined]> = [];
    const report = await client().recover({ minAgeMs: 0, onIntent: (r) => void seen.push([r.outcome, resentWithdrawalOrder(r)]) });

    expect(report.intents.map((r) => [r.intent.path, r.outcome])).toEqual([
      ['/v1/withdrawals', 'resent'],
      ['/v1/cards/crd_1/topups', 'resent'],
    ]);
    const [[, order], [, notAWithdrawal]] = seen as [[string, WithdrawalOrder], [string, undefined]];
    // Typed as the order: its fields read without a cast.
    expect([order.id, order.status, order.amount]).toEqual(['wdr_1', 'locked', WITHDRAWAL.amount]);
    expect(notAWithdrawal).toBeUndefined();
  });
});

describe('hasCallState', () => {
  it('is true for the error a call rejects with, so err.call.sent reads without a check', async () => {
    ledger.interpose('withdrawal', () => ({ reset: true }));
    const err = await failure(client(0).member(MEMBER).withdrawals.create(WITHDRAWAL));
    expect(hasCallState(err)).toBe(true);
    if (!hasCallState(err)) return;
    expect(err.call.sent).toBe('maybe');
    expect(err.call.idempotencyKey).toBe(err.idempotencyKey);
  });

  it('is false for an error raised outside a call, and for anything not an SDK error', () => {
    let refused: unknown;
    try {
      new MerchantClient({ baseUrl: 'not a url', clientId: 'c', apiKey: 'k', signingKey: 's' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect([hasCallState(refused), hasCallState(new Error('x')), hasCallState(undefined)]).toEqual([false, false, false]);
  });
});

describe('looseFields', () => {
  it("reads a loosely typed answer's fields without a guard, and gives {} for an answer that is not an object", async () => {
    const topup = await client().member(MEMBER).cards.topUp('crd_1', { amount: '5.00' });
    expect(looseFields(topup).id).toMatch(/^ctp_/);
    expect(looseFields(topup).status).toBe('pending');
    expect([looseFields('accepted'), looseFields(null), looseFields([1, 2])]).toEqual([{}, {}, {}]);
  });
});
