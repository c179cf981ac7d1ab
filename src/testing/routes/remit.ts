/**
 * Remittance setup. Corridors, bank search (`remit-banks.ts`), the personal-line agreement and
 * application follow the spec. `POST /v1/remit/quotes`, `GET /v1/remit/payee-form-schema` and
 * `POST /v1/remit/payees` are named-only in the spec; their shapes here are simulator-invented.
 */
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { Decimal, ceilTo, fmt, parsePositive } from '../money.js';
import { FIAT_PER_USD, fiatToUsd, usdToAsset } from '../pricing.js';
import type { CorridorRecord } from '../state-remittances.js';
import type { Store } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString, reqString, staticList } from './fields.js';
import { searchBanks } from './remit-banks.js';

/** Default corridors (simulator data). */
export const DEFAULT_CORRIDORS: readonly CorridorRecord[] = [
  { country: 'GB', currency: 'GBP', payment_method: 'bank_transfer', clearing_systems: ['FASTER PAYMENTS'], lines: ['express', 'pobo'] },
  {
    country: 'DE',
    currency: 'EUR',
    payment_method: 'bank_transfer',
    clearing_systems: ['SEPA', 'SEPA INSTANT'],
    lines: ['express', 'pobo'],
  },
  { country: 'US', currency: 'USD', payment_method: 'bank_transfer', clearing_systems: ['ACH', 'FEDWIRE'], lines: ['express'] },
  { country: 'SG', currency: 'SGD', payment_method: 'bank_transfer', clearing_systems: ['FAST'], lines: ['express', 'pobo'] },
  { country: 'PH', currency: 'PHP', payment_method: 'ewallet', clearing_systems: ['INSTAPAY'], lines: ['express'] },
  { country: 'JP', currency: 'JPY', payment_method: 'bank_transfer', clearing_systems: ['ZENGIN'], lines: ['pobo'] },
];

const AGREEMENT_LANGS = ['zh-Hans', 'zh-Hant', 'en', 'fr', 'ja', 'ko'];

/** Form fields per clearing system (simulator data). */
function formFields(clearing: string): Array<{ key: string; label: string; type: string; required: boolean }> {
  const routing: Record<string, { key: string; label: string }> = {
    'FASTER PAYMENTS': { key: 'sort_code', label: 'Sort code' },
    SEPA: { key: 'iban', label: 'IBAN' },
    'SEPA INSTANT': { key: 'iban', label: 'IBAN' },
    ACH: { key: 'routing_number', label: 'ABA routing number' },
    FEDWIRE: { key: 'routing_number', label: 'ABA routing number' },
  };
  const r = routing[clearing] ?? { key: 'bank_code', label: 'Bank code' };
  return [
    { key: 'account_name', label: 'Account holder name', type: 'text', required: true },
    { key: 'account_number', label: 'Account number', type: 'text', required: r.key !== 'iban' },
    { key: r.key, label: r.label, type: 'text', required: true },
    { key: 'swift_code', label: 'SWIFT/BIC', type: 'text', required: false },
  ];
}

/** The corridor for all four parts (clearing system compared exactly, case preserved). */
function corridorFor(store: Store, country: unknown, currency: unknown, method: unknown, clearing: unknown): CorridorRecord {
  const c = store.corridors.find(
    (x) =>
      x.country === country &&
      x.currency === currency &&
      x.payment_method === method &&
      typeof clearing === 'string' &&
      x.clearing_systems.includes(clearing),
  );
  if (!c) fail('corridor_not_supported', 'The remittance corridor is not available.');
  return c;
}

/** Picks the agreement language: requested, then `en`, then `zh-Hans` (no translation). */
function pickLang(ctx: RouteContext, available: Record<string, unknown>): string | undefined {
  const q = ctx.query.get('lang');
  const header = (ctx.headers['accept-language'] ?? '').split(',')[0]?.split(';')[0]?.trim() ?? '';
  const wanted =
    q ??
    AGREEMENT_LANGS.find((l) => l.toLowerCase() === header.toLowerCase()) ??
    AGREEMENT_LANGS.find((l) => l === header.split('-')[0]) ??
    '';
  return [wanted, 'en', 'zh-Hans'].find((l) => l !== '' && available[l] !== undefined);
}

/**
 * `GET /v1/remit/vp/agreement`. The agreement's language is the requested one (`lang`, else the
 * first `Accept-Language` tag, exact or by its primary subtag), then `en`, then `zh-Hans` (spec);
 * none of these configured is 503 `service_unavailable`. Sandbox's choice, where the spec is
 * silent: the intro falls back along the same chain on its own, so it may come in another
 * language than the agreement (`fr` agreement, `en` intro), and it is null only when none of the
 * chain's languages has an intro.
 */
function agreementText(ctx: RouteContext): RouteResult {
  const { agreement, intro } = ctx.store.merchant;
  const lang = agreement ? pickLang(ctx, agreement) : undefined;
  const text = lang !== undefined ? agreement?.[lang] : undefined;
  if (lang === undefined || text === undefined) {
    fail('service_unavailable', 'The agreement is not configured.', { status: 503 });
  }
  const introLang = intro ? pickLang(ctx, intro) : undefined;
  const introText = introLang !== undefined ? intro?.[introLang] : undefined;
  return {
    status: 200,
    body: {
      agreement: { lang, title: text.title, body: text.body },
      intro: introLang !== undefined && introText ? { lang: introLang, title: introText.title, body: introText.body } : null,
    },
  };
}

/** `POST /v1/remit/quotes`. */
function quoteRemittance(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const line = body['line'] === 'pobo' ? 'pobo' : 'express';
  const country = reqString(body, 'country');
  const currency = reqString(body, 'currency');
  const corridor = ctx.store.corridors.find((c) => c.country === country && c.currency === currency && c.lines.includes(line));
  if (!corridor || FIAT_PER_USD[currency] === undefined) fail('corridor_not_supported', 'The remittance corridor is not available.');
  const source = ctx.store.assets.requireEnabled(body['source_asset'] ?? 'USDT', 'source_asset');
  const receive = parsePositive(body['receive_amount'], 2, 'receive_amount');
  const principal = ceilTo(usdToAsset(fiatToUsd(receive, currency), source.code), source.ledger_scale);
  const fee = Decimal.max(ceilTo(principal.mul('0.005'), source.ledger_scale), new Decimal('1'));
  return {
    status: 200,
    body: {
      id: `rmq_${uuid()}`,
      line,
      country,
      currency,
      source_asset: source.code,
      source_amount: fmt(principal, source.ledger_scale),
      fee: fmt(fee, source.ledger_scale),
      total: fmt(principal.plus(fee), source.ledger_scale),
      receive_amount: fmt(receive, 2),
      // The spec's upstream quote lifetime: 75 seconds.
      expires_at: iso(ctx.now + 75_000),
    },
  };
}

/** `POST /v1/remit/payees`. */
function createPayee(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const m = ctx.requireMember();
  const c = corridorFor(ctx.store, body['country'], body['currency'], body['payment_method'], body['clearing_system']);
  const clearing = String(body['clearing_system']);
  const given = body['fields'];
  const values = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  const missing = formFields(clearing).filter((f) => f.required && (typeof values[f.key] !== 'string' || values[f.key] === ''));
  if (missing.length > 0) {
    fail('invalid_fields', 'Some payee fields are invalid.', {
      extra: { fields: missing.map((f) => ({ key: f.key, reason: 'required' })), reason: 'required' },
    });
  }
  const id = `pye_${uuid()}`;
  const out = {
    id,
    country: c.country,
    currency: c.currency,
    payment_method: c.payment_method,
    clearing_system: clearing,
    status: 'active',
    nickname: optString(body, 'nickname') ?? '',
    created_at: iso(ctx.now),
  };
  ctx.store.objects.set(id, { ...out, memberId: m.id });
  return { status: 201, body: out };
}

/** Remittance setup routes. */
export const remitRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/remit/corridors',
    scope: 'remittances:read',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      // Unrecognised `line` values are treated as express.
      const line = ctx.query.get('line') === 'pobo' ? 'pobo' : 'express';
      const data = ctx.store.corridors
        .filter((c) => c.lines.includes(line))
        .map((c) => ({
          country: c.country,
          currency: c.currency,
          payment_method: c.payment_method,
          clearing_systems: [...c.clearing_systems],
        }));
      return { status: 200, body: staticList(data) };
    },
  },
  {
    method: 'GET',
    path: '/v1/remit/swift-search',
    scope: 'remittances:read',
    member: 'none',
    idempotency: 'none',
    handler: searchBanks,
  },
  {
    method: 'GET',
    path: '/v1/remit/vp/agreement',
    scope: 'remittances:read',
    member: 'none',
    idempotency: 'none',
    handler: agreementText,
  },
  {
    method: 'POST',
    path: '/v1/remit/vp/applications',
    scope: 'remittances:write',
    member: 'required',
    idempotency: 'required',
    handler(ctx) {
      ctx.json();
      const m = ctx.requireMember();
      if (m.kyc.l1 !== 'approved' || m.kyc.l2 !== 'approved') fail('kyc_required', 'L1 and L2 KYC must be approved.');
      if (m.vpAccountOpened) fail('state_invalid', 'The personal remittance account is already open.');
      if (ctx.store.merchant.agreement === null) fail('state_invalid', 'The agreement is not configured.');
      if (m.vpApplication && m.vpApplication.status === 'reviewing') {
        return { status: 200, body: { id: m.vpApplication.id, status: m.vpApplication.status, reused: true } };
      }
      m.vpApplication = { id: `vpa_${++ctx.store.seq.vpa}`, status: 'reviewing', agreed_at: ctx.now };
      return { status: 201, body: { id: m.vpApplication.id, status: 'reviewing' } };
    },
  },
  {
    method: 'POST',
    path: '/v1/remit/quotes',
    member: 'optional',
    idempotency: 'none',
    handler: quoteRemittance,
  },
  {
    method: 'GET',
    path: '/v1/remit/payee-form-schema',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const q = ctx.query;
      const c = corridorFor(ctx.store, q.get('country'), q.get('currency'), q.get('payment_method'), q.get('clearing_system'));
      const clearing = q.get('clearing_system') ?? '';
      return {
        status: 200,
        body: {
          country: c.country,
          currency: c.currency,
          payment_method: c.payment_method,
          clearing_system: clearing,
          fields: formFields(clearing),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/remit/payees',
    member: 'required',
    idempotency: 'required',
    handler: createPayee,
  },
];
