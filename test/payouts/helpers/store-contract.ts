/**
 * The contract every PayoutStore keeps (src/payouts/store.ts), as one suite each store runs:
 * memory here, Redis and PostgreSQL against real servers in their own folders.
 */
import { describe, expect, it } from 'vitest';
import type { PayoutRecord } from '../../../src/payouts/record.js';
import type { PayoutCursor, PayoutStore } from '../../../src/payouts/store.js';
import { payoutRecord } from './records.js';

/** What a store's test gives the suite. */
export interface StoreUnderTest {
  /** The store. */
  readonly store: PayoutStore;
  /** A second store object over the same data (another process's view), for stores that share. */
  readonly twin?: PayoutStore;
}

async function everything(
  store: PayoutStore,
  limit: number,
  query: Partial<Parameters<PayoutStore['list']>[0]> = {},
): Promise<PayoutRecord[]> {
  const out: PayoutRecord[] = [];
  let after: PayoutCursor | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.list({ ...query, limit, after });
    out.push(...page.records);
    if (page.next === undefined) return out;
    after = page.next;
  }
  throw new Error('list never ended');
}

/** Runs the contract against stores made fresh (empty) by `make` for each test. */
export function describePayoutStoreContract(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`${name} keeps the PayoutStore contract`, () => {
    it('creates a record once; a second create of the reference keeps the first and says so', async () => {
      const { store } = await make();
      const first = payoutRecord({ reference: 'ord-1', amount: '1.5' });
      expect(await store.create(first)).toEqual({ created: true, record: first });
      const again = await store.create(payoutRecord({ reference: 'ord-1', amount: '99' }));
      expect(again).toEqual({ created: false, record: first });
      expect(await store.get('ord-1')).toEqual(first);
    });

    it('hands a record back exactly as written: nulls, nested steps, text outside ASCII', async () => {
      const { store } = await make();
      const record = payoutRecord({
        reference: 'ordre-é-😀-"quoted"',
        state: 'paid',
        version: 1,
        withdrawalId: 'wdr_1',
        handOut: { at: 1_765_000_000_123, leaseUntil: 123_456.5, worker: 'w-1' },
        chainRef: '0xabc',
        confirmSent: true,
        settle: { step: 'confirm', attempt: 3, sent: true, merchantLevel: false, refusedCode: 'merchant_custody_shortfall', nextAt: 99.25 },
        attention: { reason: 'payment_unknown', from: 'paying', detail: 'line\nbreak', code: null, since: 1 },
      });
      await store.create(record);
      expect(await store.get(record.reference)).toEqual(record);
      expect(await store.get('absent')).toBeUndefined();
    });

    it('replaces only over the version just below: stale, skipped and unknown references store nothing', async () => {
      const { store } = await make();
      const r1 = payoutRecord({ reference: 'ord-2' });
      await store.create(r1);
      const r2 = { ...r1, version: 2, state: 'debited' as const, withdrawalId: 'wdr_2' };
      expect(await store.replace(r2)).toBe(true);
      expect(await store.replace({ ...r1, version: 2, state: 'rejected' })).toBe(false);
      expect(await store.replace({ ...r2, version: 4, state: 'paying' })).toBe(false);
      expect(await store.replace({ ...r2, reference: 'nobody', version: 2 })).toBe(false);
      expect(await store.get('ord-2')).toEqual(r2);
      expect(await store.get('nobody')).toBeUndefined();
    });

    it('lets exactly one of many racing replaces of one version win', async () => {
      const { store, twin } = await make();
      const r1 = payoutRecord({ reference: 'ord-race', state: 'debited', withdrawalId: 'wdr_r' });
      await store.create(r1);
      const stores = [store, twin ?? store];
      const tries = Array.from({ length: 10 }, (_, i) =>
        stores[i % 2]!.replace({ ...r1, version: 2, state: 'paying', handOut: { at: i, leaseUntil: i, worker: `w-${i}` } }),
      );
      const won = (await Promise.all(tries)).filter(Boolean);
      expect(won).toHaveLength(1);
      const stored = await store.get('ord-race');
      expect(stored?.version).toBe(2);
      expect(stored?.handOut?.worker).toMatch(/^w-\d$/);
    });

    it('lists oldest first by (createdAt, reference), filtered by state and creation time, each record once over pages', async () => {
      const { store } = await make();
      const rows = [
        payoutRecord({ reference: 'b', createdAt: 200, state: 'debited' }),
        payoutRecord({ reference: 'a', createdAt: 200, state: 'paid' }),
        payoutRecord({ reference: 'c', createdAt: 100, state: 'confirmed' }),
        payoutRecord({ reference: 'd', createdAt: 300, state: 'debited' }),
        payoutRecord({ reference: 'e', createdAt: 50, state: 'needs_attention' }),
      ];
      for (const r of rows) await store.create(r);
      for (const limit of [1, 2, 3, 10]) {
        expect((await everything(store, limit)).map((r) => r.reference)).toEqual(['e', 'c', 'a', 'b', 'd']);
      }
      expect((await everything(store, 1, { states: ['debited', 'paid'] })).map((r) => r.reference)).toEqual(['a', 'b', 'd']);
      expect((await everything(store, 2, { createdFrom: 100, createdBefore: 300 })).map((r) => r.reference)).toEqual(['c', 'a', 'b']);
      expect(await everything(store, 2, { states: ['rejected'] })).toEqual([]);
      const page = await store.list({ limit: 2 });
      expect(page.records.map((r) => r.reference)).toEqual(['e', 'c']);
      expect(page.next).toEqual({ createdAt: 100, reference: 'c' });
      expect((await store.list({ limit: 5 })).next).toBeUndefined();
    });

    it('lists a record under its new state once replaced, and no longer under the old one', async () => {
      const { store } = await make();
      const r1 = payoutRecord({ reference: 'ord-move', state: 'debited' });
      await store.create(r1);
      await store.replace({ ...r1, version: 2, state: 'paying' });
      expect((await store.list({ states: ['debited'], limit: 10 })).records).toEqual([]);
      expect((await store.list({ states: ['paying'], limit: 10 })).records.map((r) => r.version)).toEqual([2]);
    });

    it('shares its records and its clock with another store object over the same data', async () => {
      const { store, twin } = await make();
      const other = twin ?? store;
      await store.create(payoutRecord({ reference: 'shared' }));
      expect((await other.get('shared'))?.reference).toBe('shared');
      const a = await store.now();
      const b = await other.now();
      const c = await store.now();
      expect(Number.isFinite(a)).toBe(true);
      expect(b).toBeGreaterThanOrEqual(a);
      expect(c).toBeGreaterThanOrEqual(a);
    });
  });
}
