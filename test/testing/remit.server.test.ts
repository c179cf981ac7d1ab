/**
 * Remittances through the SDK over server mode: bank search (the short-query rule and the
 * BIC-shaped name choice), the agreement's language fallback, and cancel's two refusals.
 */
import { describe, expect, it } from 'vitest';
import { isApiError, type ApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();

describe('GET /v1/remit/swift-search', () => {
  it('a query under 6 characters answers banks [] and unavailable false without asking the directory, even while it is down', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setDirectoryAvailable(false);
    for (const q of ['DBS', 'bank', 'DEUTD']) {
      expect(await client.remittances.swiftSearch({ q })).toEqual({ unavailable: false, banks: [] });
    }
    expect(sandbox.stats.directorySearches).toBe(0);
    // A longer query does ask, and learns that the directory is down.
    expect(await client.remittances.swiftSearch({ q: 'Barclays Bank' })).toEqual({ unavailable: true, banks: [] });
    expect(sandbox.stats.directorySearches).toBe(1);
  });

  it('a BIC is looked up as a BIC; a BIC-shaped name with no such BIC is searched as a name (sandbox choice)', async () => {
    const { sandbox, client } = await serve();
    const bic = await client.remittances.swiftSearch({ q: 'DEUTDEFFXXX' });
    expect(bic.banks.map((b) => b.swift_code)).toEqual(['DEUTDEFFXXX']);
    const eight = await client.remittances.swiftSearch({ q: 'BARCGB22' });
    expect(eight.banks.map((b) => b.swift_code)).toEqual(['BARCGB22XXX', 'BARCGB22LON']);
    // "barclays" has the shape of an 8-character BIC, and no bank has that BIC.
    const name = await client.remittances.swiftSearch({ q: 'barclays' });
    expect(name.unavailable).toBe(false);
    expect(name.banks.map((b) => b.bank_name)).toEqual(['Barclays Bank PLC', 'Barclays Bank PLC']);
    expect(sandbox.stats.directorySearches).toBe(3);
  });

  it('a name search is filtered by country', async () => {
    const { client } = await serve();
    expect((await client.remittances.swiftSearch({ q: 'Barclays', country: 'GB' })).banks).toHaveLength(2);
    expect((await client.remittances.swiftSearch({ q: 'Barclays Bank', country: 'DE' })).banks).toEqual([]);
  });
});

describe('GET /v1/remit/vp/agreement', () => {
  it('falls back through en, then zh-Hans; the intro falls back on its own chain (sandbox choice)', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setAgreement(
      { fr: { title: 'Accord', body: 'fr' }, 'zh-Hans': { title: '协议', body: 'zh' } },
      { en: { title: 'Intro', body: 'en' } },
    );
    const fr = await client.remittances.agreement({ lang: 'fr' });
    expect(fr.agreement.lang).toBe('fr');
    // The agreement has no en: zh-Hans. The intro has no fr: en, another language than the agreement.
    expect(fr.intro).toEqual({ lang: 'en', title: 'Intro', body: 'en' });
    const ja = await client.remittances.agreement({ lang: 'ja' });
    expect([ja.agreement.lang, ja.intro?.lang]).toEqual(['zh-Hans', 'en']);
    // No intro in any language of the chain: null.
    sandbox.state.setAgreement({ en: { title: 'Agreement', body: 'en' } }, { ko: { title: '소개', body: 'ko' } });
    const en = await client.remittances.agreement({ lang: 'fr' });
    expect(en).toEqual({ agreement: { lang: 'en', title: 'Agreement', body: 'en' }, intro: null });
  });

  it('an agreement in none of the chain’s languages is 503 service_unavailable', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setAgreement({ ko: { title: '협약', body: 'ko' } });
    const err = await thrownBy(() => client.remittances.agreement({ lang: 'fr' }));
    expect(isApiError(err, 'service_unavailable')).toBe(true);
    expect((err as ApiError).status).toBe(503);
  });
});

describe('POST /v1/remittances/{id}/cancel', () => {
  it('outside needs_reconfirm: the current 500 api_error, sent once, nothing moves, the key not kept', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '5' } } });
    const order = sandbox.state.seedRemittance({ member: m.id, status: 'processing', amount: '40' });
    const key = '0b0e7f6c-7d7e-4c1a-9b4b-0d3c1a2b3c4d';
    const err = await thrownBy(() => client.member(m.id).remittances.cancel(order.id, { idempotencyKey: key }));
    expect(isApiError(err, 'api_error')).toBe(true);
    expect((err as ApiError).attempts).toBe(1);
    expect(sandbox.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(1);
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '5.000000', locked: '40.000000' });
    expect(sandbox.state.remittance(order.id)?.status).toBe('processing');
    // 5xx outcomes are not stored under the key: the same key runs again (and fails the same way).
    const again = await thrownBy(() => client.member(m.id).remittances.cancel(order.id, { idempotencyKey: key }));
    expect((again as ApiError).replayed).toBe(false);
    expect(sandbox.state.countEffects()).toBe(0);
  });

  it("outside needs_reconfirm, seeded cancel_answer 'state_invalid': the spec's primary 400, sent once, nothing moves, replayed by its key", async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '5' } } });
    const order = sandbox.state.seedRemittance({ member: m.id, status: 'processing', amount: '40', cancel_answer: 'state_invalid' });
    const key = '1c0e7f6c-7d7e-4c1a-9b4b-0d3c1a2b3c4d';
    const err = await thrownBy(() => client.member(m.id).remittances.cancel(order.id, { idempotencyKey: key }));
    expect(isApiError(err, 'state_invalid')).toBe(true);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).attempts).toBe(1);
    expect(sandbox.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(1);
    expect(sandbox.state.remittance(order.id)?.status).toBe('processing');
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '5.000000', locked: '40.000000' });
    // A 400 business failure is kept under the key: the same key replays it.
    const again = await thrownBy(() => client.member(m.id).remittances.cancel(order.id, { idempotencyKey: key }));
    expect(isApiError(again, 'state_invalid')).toBe(true);
    expect((again as ApiError).replayed).toBe(true);
    expect(sandbox.state.countEffects()).toBe(0);
  });

  it("cancel_answer 'state_invalid' holds once the order left needs_reconfirm by a cancel: the second cancel is a 400", async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const order = sandbox.state.seedRemittance({ member: m.id, amount: '40', cancel_answer: 'state_invalid' });
    expect(await client.member(m.id).remittances.cancel(order.id)).toMatchObject({ status: 'canceled' });
    const err = await thrownBy(() => client.member(m.id).remittances.cancel(order.id));
    expect(isApiError(err, 'state_invalid')).toBe(true);
    expect(sandbox.state.countEffects('remittance.cancel')).toBe(1);
  });

  it('needs_reconfirm but blocked (seeded cancel_blocked): 400 state_invalid, nothing moves', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const order = sandbox.state.seedRemittance({ member: m.id, amount: '40', cancel_blocked: true });
    const err = await thrownBy(() => client.member(m.id).remittances.cancel(order.id));
    expect(isApiError(err, 'state_invalid')).toBe(true);
    expect((err as ApiError).attempts).toBe(1);
    expect(sandbox.state.remittance(order.id)?.status).toBe('needs_reconfirm');
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '0.000000', locked: '40.000000' });
  });
});
