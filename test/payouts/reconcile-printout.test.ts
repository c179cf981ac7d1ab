/** formatReconciliation: each kind of finding on its own line, as docs/payouts.md reads them. */
import { describe, expect, it } from 'vitest';
import { formatReconciliation, type PayoutReconciliation } from '../../src/payouts/index.js';

const T = Date.UTC(2026, 11, 7, 10, 0, 0);
const summary = { member: 'mem_2', asset: 'USDT', amount: '10', state: 'debited' as const, withdrawalId: 'wdr_9', createdAt: T };

const report: PayoutReconciliation = {
  period: { from: T - 86_400_000, until: T },
  discrepancies: [
    {
      member: 'mem_1',
      asset: 'USDT',
      direction: 'below',
      withdrawing: '8.000000',
      lower: '27.500000',
      upper: '27.500000',
      difference: '19.500000',
      firstRead: { withdrawing: '8.000000', lower: '27.500000', upper: '27.500000' },
      candidates: [
        {
          reference: 'po-1',
          state: 'debited',
          amount: '19.5',
          withdrawalId: 'wdr_1',
          createdAt: T,
          endedAt: null,
          endedBy: null,
          exposure: 'certain',
          amountMatches: true,
        },
        {
          reference: 'po-2',
          state: 'confirmed',
          amount: '8',
          withdrawalId: null,
          createdAt: T,
          endedAt: T,
          endedBy: null,
          exposure: 'none',
          amountMatches: false,
        },
      ],
    },
  ],
  membersNotFound: [
    { member: 'mem_2', openPayouts: [{ reference: 'po-3', ...summary }] },
    { member: 'ext-x', openPayouts: [] },
  ],
  stalePayouts: [{ reference: 'po-4', ...summary, withdrawalId: null, ageMs: 30 * 3_600_000 }],
  readFailures: [
    { member: 'mem_5', code: 'api_error', status: 500, message: 'ApiError: api_error (HTTP 500)' },
    { member: 'mem_6', code: null, status: null, message: 'ConnectionError: reset' },
  ],
  membersRead: [
    { member: 'mem_1', source: 'store_and_named', reads: 2, assets: ['USDT'] },
    { member: 'mem_7', source: 'named', reads: 1, assets: [] },
  ],
  notRead: 'Only the 2 member(s) above were asked for their balances.',
  clean: false,
};

describe('formatReconciliation', () => {
  it('prints the headline, then one fact per line', () => {
    expect(formatReconciliation(report).split('\n')).toEqual([
      'payout reconciliation, period 2026-12-06T10:00:00.000Z to 2026-12-07T10:00:00.000Z: 1 discrepancy, 2 members not found, 1 stale payout, 2 read failures, 2 members read',
      'DISCREPANCY mem_1 USDT below by 19.500000: withdrawing 8.000000 outside [27.500000, 27.500000] (first read: withdrawing 8.000000, bounds [27.500000, 27.500000])',
      '  candidate po-1 debited, amount 19.5 = difference, wdr_1, open (certain)',
      '  candidate po-2 confirmed, amount 8, no withdrawal id, ended by unknown at 2026-12-07T10:00:00.000Z',
      'NOT FOUND mem_2: 1 open payout',
      '  open po-3 debited USDT 10 wdr_9, created 2026-12-07T10:00:00.000Z',
      'NOT FOUND ext-x: 0 open payouts',
      'STALE po-4 mem_2 USDT 10 debited, created 2026-12-07T10:00:00.000Z (30.0 h ago)',
      'READ FAILED mem_5: 500 api_error (ApiError: api_error (HTTP 500))',
      'READ FAILED mem_6: no answer (ConnectionError: reset)',
      'READ mem_1 (store and named, 2 reads): USDT',
      'READ mem_7 (named, 1 read): no asset',
      'NOT READ Only the 2 member(s) above were asked for their balances.',
    ]);
  });
});
