/**
 * KYC rules tied to a card product, through the SDK over server mode, with products seeded by
 * `state.seedCardProduct`: a snapshot per product, another product while one is pending is
 * `state_invalid`, and after L1 approval `{}` adds an approved snapshot.
 */
import { describe, expect, it } from 'vitest';
import { isApiError, type ApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();
const PROFILE = { first_name: 'Mei', last_name: 'Tan', nationality: 'SG' };

describe('card products and the KYC rules tied to them', () => {
  it('seeded products are listed; a submission for one creates its pending snapshot, repeated with 200', async () => {
    const { sandbox, client } = await serve();
    const gold = sandbox.state.seedCardProduct({ id: 'gold', name: 'Gold', form: 'physical', currency: 'EUR', country: 'DE' });
    expect(gold).toBe('cpd_gold');
    const m = sandbox.state.seedMember();
    const listed = await client.member(m.id).cards.products().collect(10);
    expect(listed.map((p) => (p as { id?: unknown } | null)?.id)).toContain('cpd_gold');
    const kyc = client.member(m.id).kyc;
    // The id is accepted without its cpd_ prefix.
    const first = await kyc.submitApplication({ card_product_id: 'gold', profile: PROFILE }).withResponse();
    expect(first.response.status).toBe(201);
    expect(first.data).toMatchObject({ card_product_id: 'cpd_gold', status: 'pending', level: 1 });
    expect(first.data.id).toMatch(/^cpkyc_gold_\d+$/);
    const again = await kyc.submitApplication({ card_product_id: 'cpd_gold', profile: PROFILE }).withResponse();
    expect(again.response.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
  });

  it('another product while one is pending: state_invalid, sent once', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.seedCardProduct({ id: 'gold' });
    sandbox.state.seedCardProduct({ id: 'silver' });
    const m = sandbox.state.seedMember();
    const kyc = client.member(m.id).kyc;
    await kyc.submitApplication({ card_product_id: 'gold', profile: PROFILE });
    const err = await thrownBy(() => kyc.submitApplication({ card_product_id: 'silver', profile: PROFILE }));
    expect(isApiError(err, 'state_invalid')).toBe(true);
    expect((err as ApiError).attempts).toBe(1);
  });

  it('after L1 approval, {} for another product adds an approved snapshot; the first submission needs a profile', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.seedCardProduct({ id: 'gold' });
    sandbox.state.seedCardProduct({ id: 'silver' });
    const m = sandbox.state.seedMember();
    const kyc = client.member(m.id).kyc;
    expect(isApiError(await thrownBy(() => kyc.submitApplication({ card_product_id: 'gold', profile: {} })), 'invalid_request')).toBe(true);
    const gold = await kyc.submitApplication({ card_product_id: 'gold', profile: PROFILE });
    sandbox.state.setKycResult(m.id, 'approved');
    const silver = await kyc.submitApplication({ card_product_id: 'silver', profile: {} });
    expect(silver).toMatchObject({ card_product_id: 'cpd_silver', status: 'approved', kyc_id: gold.kyc_id });
    expect(silver.id).toMatch(/^cpkyc_silver_\d+$/);
    expect(await kyc.status()).toMatchObject({ level: 1, l1_status: 'approved' });
  });

  it('a product withdrawn from sale is product_not_available; an unknown one card_product_not_found', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.seedCardProduct({ id: 'retired', enabled: false });
    const m = sandbox.state.seedMember();
    const kyc = client.member(m.id).kyc;
    expect(
      isApiError(await thrownBy(() => kyc.submitApplication({ card_product_id: 'retired', profile: PROFILE })), 'product_not_available'),
    ).toBe(true);
    const unknown = await thrownBy(() => kyc.submitApplication({ card_product_id: 'nope', profile: PROFILE }));
    expect((unknown as ApiError).code).toBe('card_product_not_found');
    expect((unknown as ApiError).status).toBe(404);
    expect(await client.member(m.id).cards.products().collect(10)).not.toContainEqual(expect.objectContaining({ id: 'cpd_retired' }));
  });
});
