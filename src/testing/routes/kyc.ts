/**
 * KYC. `POST /v1/kyc/applications` and `POST /v1/kyc/quick` follow the spec; `GET /v1/kyc` and
 * `POST /v1/kyc/sessions` are named-only in the spec and their shapes here are
 * simulator-invented. Results arrive via `sandbox.state.setKycResult()`.
 */
import { fail } from '../errors.js';
import { hex, iso, uuid } from '../ids.js';
import { debit, kycLevel, prepaidOf } from '../store-ops.js';
import type { KycApplicationRecord, MemberRecord, QuickKycBindingRecord } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString, reqString, withPrefix } from './fields.js';

/** Bindings allowed per member (spec). */
const QUICK_KYC_MAX = 5;

function appView(a: KycApplicationRecord): Record<string, unknown> {
  return { id: a.id, card_product_id: a.card_product_id, kyc_id: a.kyc_id, status: a.status, level: a.level };
}

function bindingView(b: QuickKycBindingRecord): Record<string, unknown> {
  return {
    id: b.id,
    identity_type: b.identity_type,
    identity_issue_country: b.identity_issue_country,
    nationality: b.nationality,
    address_country: b.address_country,
    created_at: iso(b.created_at),
  };
}

function productOf(ctx: RouteContext, raw: string | undefined, unknownCode: string): string {
  if (raw === undefined || raw === '') return '';
  const id = withPrefix(raw, 'cpd_');
  const p = ctx.store.products.get(id);
  if (!p) fail(unknownCode, 'No such card product.');
  if (!p.enabled) fail('product_not_available', 'The card product is not available.');
  return id;
}

function personKycId(ctx: RouteContext, m: MemberRecord): string {
  if (m.kyc.kyc_id === '') m.kyc.kyc_id = `kyc_${++ctx.store.seq.kyc}`;
  return m.kyc.kyc_id;
}

/**
 * `POST /v1/kyc/applications`: the person-level L1 application (`kyc_<n>`), or a snapshot for a
 * card product (`cpkyc_<product>_<n>`; products seeded with `state.seedCardProduct`). Spec rules:
 * the same product while non-terminal or approved returns the existing application with 200
 * (rejected ones may be resubmitted); another product while one is pending is `state_invalid`;
 * with L1 approved, another product only adds an approved snapshot and `profile` may be `{}`.
 * Sandbox's choice: the first submission's profile counts as complete when it is not empty.
 */
function submitApplication(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const m = ctx.requireMember();
  const profile = body['profile'];
  if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) fail('invalid_request', 'profile must be an object');
  const productId = productOf(ctx, optString(body, 'card_product_id'), 'card_product_not_found');
  const live = m.kycApplications.filter((a) => a.status !== 'rejected');
  const same = live.find((a) => a.card_product_id === productId);
  if (same) return { status: 200, body: appView(same) };
  if (live.some((a) => a.status === 'pending' && a.card_product_id !== productId)) {
    fail('state_invalid', 'Another application is pending.');
  }
  const l1Approved = m.kyc.l1 === 'approved';
  // The first submission must carry a profile; the simulator only checks it is not empty.
  if (!l1Approved && Object.keys(profile).length === 0) fail('invalid_request', 'profile is required for the first submission');
  const kycId = personKycId(ctx, m);
  const app: KycApplicationRecord = {
    id: productId === '' ? kycId : `cpkyc_${productId.slice(4)}_${++ctx.store.seq.cpkyc}`,
    kyc_id: kycId,
    card_product_id: productId,
    // After L1 approval a new product only adds an approved snapshot.
    status: l1Approved ? 'approved' : 'pending',
    level: 1,
    created_at: ctx.now,
  };
  if (!l1Approved) m.kyc.l1 = 'pending';
  m.kycApplications.push(app);
  return { status: 201, body: appView(app) };
}

/** What a quick KYC request asks for: a country (from the product or the body) and an identity type. */
function quickKycWish(ctx: RouteContext, body: Record<string, unknown>): { country: string; identityType: string } {
  const productId = productOf(ctx, optString(body, 'card_product_id'), 'invalid_request');
  const country = productId ? (ctx.store.products.get(productId)?.country ?? '') : (optString(body, 'country') ?? '').toUpperCase();
  return { country, identityType: optString(body, 'identity_type') ?? '' };
}

/** The binding's email: an address no member has used yet. */
function freshEmail(ctx: RouteContext, body: Record<string, unknown>): string {
  const email = reqString(body, 'email', 254).trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) fail('invalid_request', 'email is not an address');
  const used = [...ctx.store.members.values()].some((x) => x.quickKyc.some((b) => b.email === email));
  if (used) fail('invalid_request', 'email was already used');
  return email;
}

/** Charges the first-allocation fee: platform members pay from their own balance, downstream merchants from prepayment. */
function chargeQuickKycFee(ctx: RouteContext, m: MemberRecord): void {
  const qk = ctx.store.merchant.quickKyc;
  if (ctx.store.merchant.custody === 'platform') {
    debit(m, qk.feeAsset, 'available', qk.fee, 'quick_kyc_unpaid');
    return;
  }
  const row = prepaidOf(ctx.store.merchant, qk.feeAsset);
  if (row.available.lt(qk.fee)) fail('quick_kyc_unpaid', 'The quick KYC fee cannot be paid.');
  row.available = row.available.minus(qk.fee);
}

/** `POST /v1/kyc/quick`: reuses a matching binding, else allocates a pool profile for a fee. */
function bindQuickKyc(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const m = ctx.requireMember();
  const qk = ctx.store.merchant.quickKyc;
  if (!qk.enabled) fail('quick_kyc_disabled', 'Quick KYC is not enabled.');
  const { country, identityType } = quickKycWish(ctx, body);
  const match = m.quickKyc.find(
    (b) => (country === '' || b.identity_issue_country === country) && (identityType === '' || b.identity_type === identityType),
  );
  if (match) return { status: 200, body: { reused: true, remaining: QUICK_KYC_MAX - m.quickKyc.length, binding: bindingView(match) } };
  if (m.quickKyc.length >= QUICK_KYC_MAX) fail('quick_kyc_limit', 'The member already has 5 quick KYC bindings.');
  const email = freshEmail(ctx, body);
  if (qk.pool <= 0) fail('quick_kyc_exhausted', 'No matching pool profile is free.');
  chargeQuickKycFee(ctx, m);
  qk.pool -= 1;
  const c = country || 'SG';
  const b: QuickKycBindingRecord = {
    id: uuid(),
    identity_type: identityType || 'passport',
    identity_issue_country: c,
    nationality: c,
    address_country: c,
    created_at: ctx.now,
    email,
  };
  m.quickKyc.push(b);
  ctx.effect('kyc.quick.fee', b.id, {
    memberId: ctx.store.merchant.custody === 'platform' ? m.id : undefined,
    asset: qk.feeAsset,
    amount: qk.fee.toFixed(),
  });
  return { status: 201, body: { reused: false, remaining: QUICK_KYC_MAX - m.quickKyc.length, binding: bindingView(b) } };
}

/** KYC routes. */
export const kycRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/kyc/applications',
    member: 'required',
    idempotency: 'required',
    handler: submitApplication,
  },
  {
    method: 'POST',
    path: '/v1/kyc/quick',
    member: 'required',
    idempotency: 'required',
    handler: bindQuickKyc,
  },
  {
    method: 'GET',
    path: '/v1/kyc',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const m = ctx.requireMember();
      return {
        status: 200,
        body: {
          member_id: m.id,
          external_member_id: m.external_member_id,
          level: kycLevel(m),
          kyc_id: m.kyc.kyc_id,
          l1_status: m.kyc.l1,
          l2_status: m.kyc.l2,
          applications: m.kycApplications.map(appView),
          quick_kyc_bindings: m.quickKyc.map(bindingView),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/kyc/sessions',
    member: 'required',
    idempotency: 'optional',
    handler(ctx) {
      const body = ctx.json();
      const m = ctx.requireMember();
      const level = body['level'] === 2 || body['level'] === '2' ? 2 : 1;
      const id = `kys_${hex(12)}`;
      personKycId(ctx, m);
      return {
        status: 201,
        body: { id, level, url: `https://kyc.sandbox.invalid/session/${id}`, expires_at: iso(ctx.now + 30 * 60_000) },
      };
    },
  },
];
