/** Seeding the merchant account: custody, status, prepaid pool, lines, quick KYC, agreement. */
import { fmt } from '../money.js';
import { prepaidOf, seedDec } from '../store-ops.js';
import type { MerchantSnapshot } from '../state-merchant.js';
import type { SandboxState } from '../state-types.js';
import type { SeedContext } from './context.js';

type MerchantSeeds = Pick<
  SandboxState,
  | 'setCustody'
  | 'setMerchantStatus'
  | 'setPrepaid'
  | 'setCustodyDeclaration'
  | 'setLine'
  | 'setLineHalted'
  | 'setAgreement'
  | 'setQuickKyc'
  | 'setQrFeeRate'
>;

/** The merchant as tests see it. */
export function merchantSnap({ store }: SeedContext): MerchantSnapshot {
  const prepaid: MerchantSnapshot['prepaid'] = {};
  for (const [code, row] of store.merchant.prepaid) {
    const scale = store.assets.get(code).ledger_scale;
    prepaid[code] = { available: fmt(row.available, scale), locked: fmt(row.locked, scale), queued: fmt(row.queued, scale) };
  }
  const m = store.merchant;
  return { id: m.id, custody: m.custody, status: m.status, prepaid, lines: { ...m.lines }, halted: { ...m.halted } };
}

/** The merchant-account seeders of `sandbox.state`. */
export function merchantSeeds({ store }: SeedContext): MerchantSeeds {
  const merchant = store.merchant;
  return {
    setCustody(custody) {
      merchant.custody = custody;
    },
    setMerchantStatus(status) {
      merchant.status = status;
    },
    setPrepaid(asset, columns) {
      const row = prepaidOf(merchant, store.assets.get(asset).code);
      if (columns.available !== undefined) row.available = seedDec(columns.available);
      if (columns.locked !== undefined) row.locked = seedDec(columns.locked);
      if (columns.queued !== undefined) row.queued = seedDec(columns.queued);
    },
    setCustodyDeclaration(asset, amount) {
      const code = store.assets.get(asset).code;
      if (amount === undefined) merchant.custodyDeclared.delete(code);
      else merchant.custodyDeclared.set(code, seedDec(amount));
    },
    setLine(line, enabled) {
      merchant.lines[line] = enabled;
    },
    setLineHalted(line, halted) {
      merchant.halted[line] = halted;
    },
    setAgreement(agreement, intro) {
      merchant.agreement = agreement;
      if (intro !== undefined) merchant.intro = intro;
    },
    setQuickKyc(config) {
      const q = merchant.quickKyc;
      if (config.enabled !== undefined) q.enabled = config.enabled;
      if (config.pool !== undefined) q.pool = config.pool;
      if (config.fee !== undefined) q.fee = seedDec(config.fee);
    },
    setQrFeeRate(rate) {
      merchant.qrFeeRate = seedDec(rate);
    },
  };
}
