/**
 * Cards through the SDK over server mode: limits amounts (the Conventions rule and the current
 * implementation's 500), activation's 500 on a mismatch, card products and their KYC rules.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, isApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();

describe('PATCH /v1/cards/{id}/limits amounts', () => {
  it('an excess non-zero digit beyond the card scale is 400 invalid_request, sent once, nothing recorded', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const card = sandbox.state.seedCard({ member: m.id, limits: { single: '50' } });
    const err = await thrownBy(() => client.member(m.id).cards.updateLimits(card.id, { single: '10.001' }));
    expect(isApiError(err, 'invalid_request')).toBe(true);
    expect(sandbox.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(sandbox.state.card(card.id)?.limits.single).toBe('50.00');
    // Excess zeros are allowed by the same rule.
    expect(await client.member(m.id).cards.updateLimits(card.id, { single: '10.000' })).toMatchObject({ id: card.id, accepted: true });
    expect(sandbox.state.card(card.id)?.limits.single).toBe('10.00');
  });

  it('a string that is not an amount at all is the current 500 api_error; the SDK method never sends one', async () => {
    const { sandbox, client, newClient } = await serve();
    const m = sandbox.state.seedMember();
    const card = sandbox.state.seedCard({ member: m.id, limits: { single: '50' } });
    const guarded = await thrownBy(() => client.member(m.id).cards.updateLimits(card.id, { single: 'ten' }));
    expect(guarded).toBeInstanceOf(InvalidArgumentError);
    expect(sandbox.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    const raw = newClient({ maxRetries: 0 });
    const path = `/v1/cards/${card.id}/limits`;
    const err = await thrownBy(() => raw.request({ method: 'PATCH', path, onBehalfOf: m.id, idempotent: false, body: { single: 'ten' } }));
    expect(isApiError(err, 'api_error')).toBe(true);
    expect(err).toMatchObject({ status: 500 });
    expect(sandbox.state.card(card.id)?.limits.single).toBe('50.00');
  });
});
