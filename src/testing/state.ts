/**
 * `sandbox.state`: seed and inspect the simulated service. Amounts go in as decimal strings (or
 * numbers, for convenience in tests) and come out as strings at the asset's ledger scale.
 * Member references accept the `mem_` id or the external id.
 */
import { makeCard } from './card-logic.js';
import { iso, uuid } from './ids.js';
import { Decimal, ZERO, fmt, type Dec } from './money.js';
import { totalHeld } from './remittance-logic.js';
import {
  BUCKETS,
  emptyBuckets,
  kycLevel,
  memberByRef,
  newMember,
  prepaidOf,
  rowOf,
  seedDec,
  type CardRecord,
  type MemberRecord,
  type RemittanceRecord,
  type ReportRecord,
  type Store,
} from './store.js';
import { sweep } from './sweep.js';
import { reportView, withdrawalView } from './views.js';
import type { EmitRequest } from './webhooks.js';
import type {
  BalanceSnapshot,
  BucketsInput,
  CardSnapshot,
  MerchantSnapshot,
  RemittanceSnapshot,
  ReportSnapshot,
  SandboxMember,
  SandboxState,
} from './state-types.js';

/** Builds the facade over a store. */
export function createState(store: Store, now: () => number, emit: (e: EmitRequest) => void): SandboxState {
  const mustMember = (ref: string): MemberRecord => {
    const m = memberByRef(store, ref);
    if (!m) throw new Error(`sandbox: no member ${ref}`);
    return m;
  };
  const memberSnap = (m: MemberRecord): SandboxMember => ({
    id: m.id,
    external_member_id: m.external_member_id,
    status: m.status,
    kyc_level: kycLevel(m),
    created_at: iso(m.created_at),
  });
  const setBuckets = (m: MemberRecord, asset: string, buckets: BucketsInput): void => {
    const code = store.assets.get(asset).code;
    const row = rowOf(m, code);
    for (const b of BUCKETS) if (buckets[b] !== undefined) row[b] = seedDec(buckets[b]);
  };
  const cardSnap = (c: CardRecord): CardSnapshot => ({
    id: c.id,
    member_id: c.memberId,
    form: c.form,
    status: c.status,
    inventory: c.inventory,
    failures: c.failures,
    locked_until: c.lockedUntil !== undefined && c.lockedUntil > now() ? iso(c.lockedUntil) : null,
    balance: fmt(c.balance, c.scale),
    limits: { single: fmt(c.limits.single, c.scale), daily: fmt(c.limits.daily, c.scale), monthly: fmt(c.limits.monthly, c.scale) },
  });
  const remSnap = (r: RemittanceRecord): RemittanceSnapshot => {
    const scale = store.assets.get(r.asset).ledger_scale;
    return {
      id: r.id,
      member_id: r.memberId,
      status: r.status,
      asset: r.asset,
      amount: fmt(r.amount, scale),
      locked: fmt(r.locked, scale),
      extra_holds: r.extraHolds.map((h) => fmt(h, scale)),
      total_held: fmt(totalHeld(r), scale),
    };
  };
  const putReport = (r: ReportRecord): ReportSnapshot => {
    store.reports.set(r.id, r);
    return reportView(r) as unknown as ReportSnapshot;
  };

  return {
    get merchant() {
      const prepaid: MerchantSnapshot['prepaid'] = {};
      for (const [code, row] of store.merchant.prepaid) {
        const scale = store.assets.get(code).ledger_scale;
        prepaid[code] = { available: fmt(row.available, scale), locked: fmt(row.locked, scale), queued: fmt(row.queued, scale) };
      }
      const m = store.merchant;
      return { id: m.id, custody: m.custody, status: m.status, prepaid, lines: { ...m.lines } };
    },
    get members() {
      return [...store.members.values()].map(memberSnap);
    },
    get withdrawals() {
      return [...store.withdrawals.values()].map((w) => withdrawalView(store.assets, w));
    },
    get reports() {
      return [...store.reports.values()]
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
        .map((r) => reportView(r) as unknown as ReportSnapshot);
    },
    effects: store.effects,
    countEffects(kind) {
      return kind === undefined ? store.effects.length : store.effects.filter((e) => e.kind === kind).length;
    },

    seedMember(input = {}) {
      const m = newMember(input.id ?? `mem_${uuid()}`, input.external_member_id ?? `ext_${uuid().slice(0, 8)}`, now());
      if (input.kyc_level !== undefined && input.kyc_level >= 1) {
        m.kyc = { l1: 'approved', l2: input.kyc_level >= 2 ? 'approved' : 'none', kyc_id: `kyc_${++store.seq.kyc}` };
      }
      m.status = input.status ?? 'active';
      m.restricted = input.restricted ?? false;
      if (input.payment_priorities) m.paymentPriorities = input.payment_priorities.map((a) => a.toUpperCase());
      store.members.set(m.id, m);
      for (const [asset, buckets] of Object.entries(input.balances ?? {})) setBuckets(m, asset, buckets);
      return memberSnap(m);
    },
    member(ref) {
      const m = memberByRef(store, ref);
      return m ? memberSnap(m) : undefined;
    },
    balance(ref, asset) {
      const m = mustMember(ref);
      const def = store.assets.get(asset);
      const row = m.balances.get(def.code) ?? emptyBuckets();
      const out = { asset: def.code, ledger_scale: def.ledger_scale, display_scale: def.display_scale } as BalanceSnapshot;
      let total: Dec = ZERO;
      for (const b of BUCKETS) {
        out[b] = fmt(row[b], def.ledger_scale);
        total = total.plus(row[b]);
      }
      out.total = fmt(total, def.ledger_scale);
      return out;
    },
    setBalance(ref, asset, buckets) {
      setBuckets(mustMember(ref), asset, buckets);
    },
    setKyc(ref, kyc) {
      const m = mustMember(ref);
      if (kyc.l1) m.kyc.l1 = kyc.l1;
      if (kyc.l2) m.kyc.l2 = kyc.l2;
      if (m.kyc.kyc_id === '') m.kyc.kyc_id = `kyc_${++store.seq.kyc}`;
    },
    setKycResult(ref, result, level = 1) {
      const m = mustMember(ref);
      for (const a of m.kycApplications) if (a.status === 'pending') a.status = result;
      if (level === 1) m.kyc.l1 = result;
      else m.kyc.l2 = result;
      if (m.kyc.kyc_id === '') m.kyc.kyc_id = `kyc_${++store.seq.kyc}`;
      emit({
        event_type: 'kyc.result.updated',
        data: { object: 'kyc', id: m.kyc.kyc_id, external_member_id: m.external_member_id, status: result },
      });
    },
    openVpAccount(ref) {
      const m = mustMember(ref);
      m.vpAccountOpened = true;
      if (m.vpApplication) m.vpApplication.status = 'approved';
    },
    suspendMember(ref) {
      mustMember(ref).status = 'suspended';
    },

    setCustody(custody) {
      store.merchant.custody = custody;
    },
    setMerchantStatus(status) {
      store.merchant.status = status;
    },
    setPrepaid(asset, columns) {
      const row = prepaidOf(store.merchant, store.assets.get(asset).code);
      if (columns.available !== undefined) row.available = seedDec(columns.available);
      if (columns.locked !== undefined) row.locked = seedDec(columns.locked);
      if (columns.queued !== undefined) row.queued = seedDec(columns.queued);
    },
    setCustodyDeclaration(asset, amount) {
      const code = store.assets.get(asset).code;
      if (amount === undefined) store.merchant.custodyDeclared.delete(code);
      else store.merchant.custodyDeclared.set(code, seedDec(amount));
    },
    setLine(line, enabled) {
      store.merchant.lines[line] = enabled;
    },
    setConversionPair(from, to, patch) {
      const key = `${from.toUpperCase()}>${to.toUpperCase()}`;
      const pair = store.conversionPairs.get(key) ?? {
        from: from.toUpperCase(),
        to: to.toUpperCase(),
        enabled: true,
        fee_rate: new Decimal('0.001'),
        fee_side: 'to' as const,
        min_from_amount: undefined,
        max_from_amount: undefined,
        rate: undefined,
      };
      if (patch.enabled !== undefined) pair.enabled = patch.enabled;
      if (patch.fee_rate !== undefined) pair.fee_rate = seedDec(patch.fee_rate);
      if (patch.fee_side !== undefined) pair.fee_side = patch.fee_side;
      if (patch.min_from_amount !== undefined) pair.min_from_amount = seedDec(patch.min_from_amount);
      if (patch.max_from_amount !== undefined) pair.max_from_amount = seedDec(patch.max_from_amount);
      if (patch.rate !== undefined) pair.rate = seedDec(patch.rate);
      store.conversionPairs.set(key, pair);
    },
    setAsset(asset) {
      store.assets.put(asset);
    },
    setAgreement(agreement, intro) {
      store.merchant.agreement = agreement;
      if (intro !== undefined) store.merchant.intro = intro;
    },
    setQuickKyc(config) {
      const q = store.merchant.quickKyc;
      if (config.enabled !== undefined) q.enabled = config.enabled;
      if (config.pool !== undefined) q.pool = config.pool;
      if (config.fee !== undefined) q.fee = seedDec(config.fee);
    },
    setQrFeeRate(rate) {
      store.merchant.qrFeeRate = seedDec(rate);
    },
    setCorridors(corridors) {
      store.corridors = corridors.map((c) => ({ ...c, clearing_systems: [...c.clearing_systems], lines: [...c.lines] }));
    },
    setDirectoryAvailable(available) {
      store.directoryAvailable = available;
    },

    seedCard(input) {
      const m = mustMember(input.member);
      const form = input.form ?? 'virtual';
      const product = input.product_id ? store.products.get(input.product_id) : undefined;
      const c = makeCard({
        id: input.id ?? `crd_${uuid()}`,
        memberId: m.id,
        form,
        status: input.status ?? (form === 'physical' ? 'unactivated' : 'active'),
        product,
        now: now(),
        ...(input.application_id !== undefined ? { applicationId: input.application_id } : {}),
        ...(input.expiry !== undefined ? { expiry: input.expiry } : {}),
        ...(input.pin !== undefined ? { pin: input.pin } : {}),
      });
      if (input.inventory) c.inventory = input.inventory;
      c.balance = seedDec(input.balance);
      c.authHeld = seedDec(input.auth_held);
      c.adminHeld = seedDec(input.admin_held);
      c.minRetained = seedDec(input.min_retained);
      c.feesOutstanding = seedDec(input.fees_outstanding);
      c.pendingWithdraw = input.pending_withdraw ?? false;
      c.closeRequested = input.close_requested ?? false;
      c.closePhase = input.close_phase ?? 'idle';
      c.limits_updatable = input.limits_updatable ?? true;
      c.failures = input.failures ?? 0;
      c.pendingInitialTopup = seedDec(input.pending_initial_topup);
      if (input.limits) {
        c.limits = { single: seedDec(input.limits.single), daily: seedDec(input.limits.daily), monthly: seedDec(input.limits.monthly) };
      }
      if (input.max_limits) {
        c.maxLimits = {
          single: seedDec(input.max_limits.single, c.maxLimits.single),
          daily: seedDec(input.max_limits.daily, c.maxLimits.daily),
          monthly: seedDec(input.max_limits.monthly, c.maxLimits.monthly),
        };
      }
      // Funds on (or on their way to) the card sit in the member's `card` bucket.
      const onCard = c.balance.plus(c.pendingInitialTopup);
      if (onCard.gt(0)) {
        const row = rowOf(m, c.funding_asset);
        row.card = row.card.plus(onCard);
      }
      store.cards.set(c.id, c);
      return cardSnap(c);
    },
    card(id) {
      const c = store.cards.get(id);
      return c ? cardSnap(c) : undefined;
    },
    seedRemittance(input) {
      const m = mustMember(input.member);
      const asset = store.assets.get(input.asset ?? 'USDT');
      const amount = seedDec(input.amount, new Decimal(100));
      const locked = seedDec(input.locked, amount);
      const extra = (input.extra_holds ?? []).map((h) => seedDec(h));
      const s = input.slippage ?? {};
      const newTotal = seedDec(s.new_total, amount.mul('1.015').toDecimalPlaces(asset.ledger_scale, Decimal.ROUND_UP));
      const extraCharge = seedDec(s.extra_charge, newTotal.minus(amount));
      const extraLocked = seedDec(s.extra_locked, extraCharge.mul('1.1').toDecimalPlaces(asset.ledger_scale, Decimal.ROUND_UP));
      const prepaidHold = seedDec(input.prepaid_hold);
      const prepaidAsset = store.assets.get(input.prepaid_asset ?? asset.code).code;
      const t = now();
      const r: RemittanceRecord = {
        id: input.id ?? `rmt_${uuid()}`,
        memberId: m.id,
        status: input.status ?? 'needs_reconfirm',
        line: input.line ?? 'express',
        asset: asset.code,
        amount,
        locked,
        extraHolds: extra,
        prepaidHold,
        prepaidAsset,
        action: input.action === undefined ? 'auto' : input.action,
        waitingOn: input.waiting_on,
        supplement: input.supplement
          ? { round: 1, status: input.supplement, created_at: t, submitted_at: input.supplement === 'SUBMITTED' ? t : undefined }
          : undefined,
        slippage: {
          moved_bps: s.moved_bps ?? 150,
          slippage_bps: s.slippage_bps ?? 100,
          new_total: newTotal,
          extra_charge: extraCharge,
          extra_locked: extraLocked,
        },
        needsReconfirmSince: input.needs_reconfirm_since ?? t,
        rounds: input.rounds ?? 0,
        created_at: input.created_at ?? t,
      };
      const row = rowOf(m, asset.code);
      row.locked = row.locked.plus(totalHeld(r));
      if (prepaidHold.gt(0)) {
        const p = prepaidOf(store.merchant, prepaidAsset);
        p.locked = p.locked.plus(prepaidHold);
      }
      store.remittances.set(r.id, r);
      return remSnap(r);
    },
    remittance(id) {
      const r = store.remittances.get(id.startsWith('rmt_') ? id : `rmt_${id}`);
      return r ? remSnap(r) : undefined;
    },
    seedReports(n, options = {}) {
      const spacing = options.spacingMs ?? 60_000;
      const base = now() - 1000;
      const out: ReportSnapshot[] = [];
      for (let i = 0; i < n; i++) {
        const created = base - Math.floor(i / 2) * spacing;
        const status = options.status ?? (i % 10 === 3 ? 'building' : i % 10 === 7 ? 'failed' : 'ready');
        const rows = status === 'ready' ? 100 + i : 0;
        out.push(
          putReport({
            id: `rep_${uuid()}`,
            kind: options.kind ?? 'statements',
            status,
            rows,
            bytes: rows * 64,
            error: status === 'failed' ? 'too_large' : '',
            created_at: created,
            expires_at: created + 7 * 24 * 60 * 60 * 1000,
          }),
        );
      }
      return out;
    },
    seedReport(report) {
      const created = report.created_at_ms ?? (report.created_at ? Date.parse(report.created_at) : now());
      return putReport({
        id: report.id ?? `rep_${uuid()}`,
        kind: report.kind ?? 'statements',
        status: report.status ?? 'ready',
        rows: report.rows ?? 0,
        bytes: report.bytes ?? 0,
        error: report.error ?? '',
        created_at: created,
        expires_at: report.expires_at ? Date.parse(report.expires_at) : created + 7 * 24 * 60 * 60 * 1000,
      });
    },
    expireCursors() {
      store.cursorGeneration += 1;
    },
    seedWithdrawAddress(input) {
      const id = `wad_${uuid()}`;
      store.withdrawAddresses.set(id, {
        id,
        memberId: input.member === undefined ? undefined : mustMember(input.member).id,
        asset: store.assets.get(input.asset).code,
        network: input.network ?? 'TRON',
        address: input.address,
        label: input.label ?? '',
        usable: input.usable ?? true,
        created_at: now(),
      });
      return id;
    },
    seedAddress(ref, fields, isDefault = false) {
      const m = mustMember(ref);
      const id = `addr_${uuid()}`;
      store.addresses.set(id, { id, memberId: m.id, fields: { ...fields }, is_default: isDefault, created_at: now() });
      return id;
    },
    sweep() {
      sweep(store, now(), emit);
    },
  };
}
