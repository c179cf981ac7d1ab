import { describe, expect, it } from 'vitest';
import * as S from '../../src/schemas/index.js';
import * as F from './fixtures.js';

const EXTRA = { added_later: { nested: [1, 2] } };

/** Every shape the spec gives, with a valid sample. */
const CASES: Array<[string, { safeParse(v: unknown): { success: boolean }; parse(v: unknown): unknown }, Record<string, unknown>]> = [
  ['balance row', S.balanceRowSchema, F.balanceRow],
  ['balances envelope', S.balancesEnvelopeSchema, { data: [F.balanceRow], next_cursor: null, has_more: false, balances: [F.balanceRow] }],
  ['withdrawal order', S.withdrawalOrderSchema, F.withdrawalOrder],
  ['QR quote item', S.qrQuoteItemSchema, F.quoteItem],
  ['QR quote', S.qrQuoteSchema, F.qrQuote],
  ['KYC application', S.kycApplicationSchema, F.kycApplication],
  ['quick KYC result', S.quickKycResultSchema, F.quickKyc],
  ['merchant conversion', S.merchantConversionSchema, F.conversion],
  ['top-up declaration', S.topupDeclarationSchema, F.topup],
  ['personal account application', S.personalAccountApplicationSchema, { id: 'vpa_1', status: 'reviewing' }],
  ['pending action (slippage)', S.pendingActionResultSchema, { id: 'rmt_1', waiting_on: 'member', action: F.slippage }],
  ['pending action (supplement)', S.pendingActionResultSchema, { id: 'rmt_1', waiting_on: 'member', action: F.supplement }],
  ['pending action (null)', S.pendingActionResultSchema, { id: 'rmt_1', waiting_on: 'review', action: null }],
  ['card close precheck', S.cardCloseCheckSchema, F.closeCheck],
  ['card status', S.cardStatusResultSchema, { id: 'crd_1', status: 'unfreezing' }],
  ['card limits result', S.cardLimitsResultSchema, { id: 'crd_1', accepted: true }],
  ['remittance cancel result', S.remittanceCancelResultSchema, { id: 'rmt_1', status: 'canceled' }],
  ['export report', S.exportReportSchema, F.report],
  ['report page', S.exportReportPageSchema, { data: [F.report], next_cursor: 'c2', has_more: true }],
  ['corridor', S.corridorSchema, F.corridor],
  ['bank entry', S.bankEntrySchema, F.bank],
  ['swift search', S.swiftSearchResultSchema, { unavailable: false, banks: [F.bank] }],
  ['agreement', S.agreementSchema, F.agreement],
  ['faucet credit', S.faucetCreditSchema, F.faucet],
  ['token', S.tokenSchema, F.token],
];

describe('schemas of the spec shapes', () => {
  for (const [name, schema, sample] of CASES) {
    it(`${name}: parses the sample and keeps unknown fields`, () => {
      const parsed = schema.parse({ ...sample, ...EXTRA }) as Record<string, unknown>;
      expect(parsed).toEqual({ ...sample, ...EXTRA });
    });
    it(`${name}: rejects a sample missing a required field`, () => {
      const key = Object.keys(sample)[0]!;
      const { [key]: _dropped, ...rest } = sample;
      expect(schema.safeParse(rest).success).toBe(false);
    });
  }

  it('keeps decimal amounts as the exact strings sent', () => {
    const row = S.balanceRowSchema.parse({ ...F.balanceRow, available: '100.000000' });
    expect(row.available).toBe('100.000000');
    expect(S.balanceRowSchema.safeParse({ ...F.balanceRow, available: 100 }).success).toBe(false);
  });

  it('nested objects keep unknown fields too', () => {
    const q = S.qrQuoteSchema.parse({ ...F.qrQuote, chosen: { ...F.quoteItem, promo: 'x' } });
    expect((q.chosen as Record<string, unknown>)['promo']).toBe('x');
  });
});

describe('forward compatibility of enums', () => {
  const unknown = 'brand_new_value';
  it.each([
    ['report status', () => S.exportReportSchema.parse({ ...F.report, status: unknown }).status],
    ['report kind', () => S.exportReportSchema.parse({ ...F.report, kind: unknown }).kind],
    ['report error', () => S.exportReportSchema.parse({ ...F.report, error: unknown }).error],
    ['close phase', () => S.cardCloseCheckSchema.parse({ ...F.closeCheck, closePhase: unknown }).closePhase],
    ['waiting_on', () => S.pendingActionResultSchema.parse({ id: 'r', waiting_on: unknown, action: null }).waiting_on],
    ['card status', () => S.cardStatusResultSchema.parse({ id: 'c', status: unknown }).status],
    ['remittance status', () => S.remittanceCancelResultSchema.parse({ id: 'r', status: unknown }).status],
    ['withdrawal status', () => S.withdrawalOrderSchema.parse({ ...F.withdrawalOrder, status: unknown }).status],
    ['top-up channel', () => S.topupDeclarationSchema.parse({ ...F.topup, channel: unknown }).channel],
    ['supplement status', () => (S.pendingActionSchema.parse({ ...F.supplement, status: unknown }) as { status: string }).status],
    [
      'reject_reason',
      () => (S.pendingActionSchema.parse({ ...F.slippage, reject_reason: unknown }) as { reject_reason: string }).reject_reason,
    ],
  ])('%s: an unknown value is kept unchanged', (_name, read) => {
    expect(read()).toBe(unknown);
  });

  it('an enum still rejects a non-string', () => {
    expect(S.exportReportSchema.safeParse({ ...F.report, status: 3 }).success).toBe(false);
  });
});

describe('pending action kinds', () => {
  it('returns an unknown action.kind as such, with all its fields', () => {
    const action = { kind: 'fx_reprice', foo: 1, bar: { baz: 'q' } };
    const parsed = S.pendingActionResultSchema.parse({ id: 'rmt_1', waiting_on: 'member', action });
    expect(parsed.action).toEqual(action);
    expect(S.isUnknownAction(parsed.action)).toBe(true);
    expect(S.isSlippageAction(parsed.action)).toBe(false);
    expect(S.isSupplementAction(parsed.action)).toBe(false);
  });

  it('narrows known kinds', () => {
    const s = S.pendingActionResultSchema.parse({ id: 'r', waiting_on: 'member', action: F.slippage }).action;
    expect(S.isSlippageAction(s) && s.extra_locked).toBe('1.50');
    const p = S.pendingActionResultSchema.parse({ id: 'r', waiting_on: 'member', action: F.supplement }).action;
    expect(S.isSupplementAction(p) && p.items[0]!.field_key).toBe('invoice');
    expect(S.isUnknownAction(null)).toBe(false);
  });

  it('a known kind with a malformed body fails instead of passing as unknown', () => {
    const { new_total: _n, ...broken } = F.slippage;
    expect(S.pendingActionSchema.safeParse(broken).success).toBe(false);
    expect(S.pendingActionSchema.safeParse({ ...F.supplement, deadline: '2026-01-01T00:00:00Z' }).success).toBe(false);
  });

  it('a known kind alone (none of its listed fields) fails; an unknown kind alone passes', () => {
    expect(S.pendingActionSchema.safeParse({ kind: 'slippage' }).success).toBe(false);
    expect(S.pendingActionSchema.safeParse({ kind: 'supplement' }).success).toBe(false);
    expect(S.pendingActionSchema.safeParse({ kind: 'fx_reprice' }).success).toBe(true);
    // The unknown-kind branch itself refuses the known kinds (the OpenAPI document's `UnknownAction` says the same).
    for (const kind of S.KNOWN_ACTION_KINDS) expect(S.unknownActionSchema.safeParse({ kind }).success).toBe(false);
    expect(S.KNOWN_ACTION_KINDS).toEqual(['slippage', 'supplement']);
  });

  it('an action without a string kind fails', () => {
    expect(S.pendingActionSchema.safeParse({ foo: 1 }).success).toBe(false);
  });
});

describe('null and empty-string forms the spec names', () => {
  it('QR quote expires_at ""', () => {
    expect(S.qrQuoteSchema.parse(F.qrQuote).expires_at).toBe('');
  });
  it('agreement intro null (and an intro object)', () => {
    expect(S.agreementSchema.parse(F.agreement).intro).toBeNull();
    expect(S.agreementSchema.parse({ ...F.agreement, intro: { lang: 'en', title: 't', body: 'b' } }).intro?.title).toBe('t');
  });
  it('bank address null, branch ""', () => {
    const b = S.bankEntrySchema.parse(F.bank);
    expect(b.address).toBeNull();
    expect(b.branch).toBe('');
  });
  it('supplement submitted_at "" and deadline null', () => {
    const a = S.supplementActionSchema.parse(F.supplement);
    expect(a.submitted_at).toBe('');
    expect(a.deadline).toBeNull();
  });
  it('KYC card_product_id "" and quick KYC identity_issue_country ""', () => {
    expect(S.kycApplicationSchema.parse(F.kycApplication).card_product_id).toBe('');
    expect(S.quickKycResultSchema.parse(F.quickKyc).binding.identity_issue_country).toBe('');
  });
  it('report error "" while not failed; blocked_reason ""', () => {
    expect(S.exportReportSchema.parse(F.report).error).toBe('');
    expect(S.qrQuoteSchema.parse(F.qrQuote).blocked_reason).toBe('');
  });
  it('optional fields may be absent: duplicated, reused, merchant-funded fee fields', () => {
    expect(S.merchantConversionSchema.parse(F.conversion).duplicated).toBeUndefined();
    expect(S.merchantConversionSchema.parse({ ...F.conversion, duplicated: true }).duplicated).toBe(true);
    expect(S.faucetCreditSchema.parse({ ...F.faucet, duplicated: true }).duplicated).toBe(true);
    expect(S.qrQuoteItemSchema.parse(F.quoteItem).fee_asset).toBeUndefined();
  });
  it('the balances envelope validates without the transitional balances copy', () => {
    expect(S.balancesEnvelopeSchema.safeParse({ data: [], next_cursor: null, has_more: false }).success).toBe(true);
  });
});

describe('page and loose schemas', () => {
  it('pageSchema requires has_more and a nullable next_cursor', () => {
    const page = S.pageSchema(S.corridorSchema);
    expect(page.safeParse({ data: [F.corridor], next_cursor: null, has_more: false }).success).toBe(true);
    expect(page.safeParse({ data: [F.corridor], next_cursor: null }).success).toBe(false);
    expect(page.safeParse({ data: [{}], next_cursor: null, has_more: false }).success).toBe(false);
  });
  it('loose results accept any object and type only what the prose names, as a convenience, never a gate', () => {
    expect(S.looseResultSchema.parse({ anything: [1], id: 'x' })).toEqual({ anything: [1], id: 'x' });
    expect(S.looseResultSchema.parse({})).toEqual({});
    // What the pipeline validates a loose endpoint's body with: the body itself, whatever it is
    // (the object schemas above only declare the typed fields).
    for (const body of [{ id: 5, status: null }, [1, 'a'], 'text', 7, true, null]) {
      const parsed = S.looseValueSchema.parse(body);
      expect(parsed).toBe(body);
      expect(S.loose(S.cardRecordSchema).parse(body)).toBe(body);
      expect(S.looseListSchema.parse(body)).toBe(body);
    }
    expect(S.remittanceRecordSchema.parse({ id: 'rmt_1', status: 'new_state', payee: {} }).status).toBe('new_state');
    expect(S.reportDetailSchema.parse({ id: 'rep_1', download_url: 'https://x' }).download_url).toBe('https://x');
    expect(S.qrDecodeResultSchema.parse({ amount_editable: true, required_payer_fields: [] }).amount_editable).toBe(true);
    expect(S.cardRecordSchema.parse({ id: 'crd_1', limits_updatable: false }).limits_updatable).toBe(false);
  });
});
