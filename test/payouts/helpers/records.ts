import type { PayoutRecord } from '../../../src/payouts/record.js';

/** A payout record as the workflow would write it, with any field replaced. */
export function payoutRecord(overrides: Partial<PayoutRecord> & { reference: string }): PayoutRecord {
  return {
    version: 1,
    state: 'debit_pending',
    member: 'mem_00000000-0000-4000-8000-000000000001',
    asset: 'USDT',
    amount: '12.5',
    toAddress: 'TXYZ-destination',
    createdAt: 1_765_000_000_000,
    updatedAt: 1_765_000_000_000,
    debitKey: '2b4a3a55-8f3e-5d39-9c1f-6e0c0f1f2a10',
    debitSends: 0,
    withdrawalId: null,
    handOut: null,
    chainRef: null,
    unpaidReason: null,
    confirmSent: false,
    settle: null,
    attention: null,
    outcome: null,
    ...overrides,
  };
}
