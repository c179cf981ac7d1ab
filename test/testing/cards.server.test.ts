/**
 * Cards through the SDK over server mode: limits amounts (the Conventions rule and the current
 * implementation's 500), and activation's current 500s (a mismatch, a card not yet shipped).
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, isApiError, type ApiError } from '../../src/index.js';
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

describe('POST /v1/cards/{id}/activate: the current 500s', () => {
  it('mismatched details: 500 api_error, sent once by the SDK, each counted; the third locks the card for 24 hours', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const card = sandbox.state.seedCard({
      member: m.id,
      form: 'physical',
      status: 'unactivated',
      inventory: 'shipped',
      expiry: '08/30',
      pin: '2468',
    });
    const cards = client.member(m.id).cards;
    for (let i = 1; i <= 3; i++) {
      const err = await thrownBy(() => cards.activate(card.id, { expiry: '08/30', pin: '0000' }));
      expect(isApiError(err, 'api_error')).toBe(true);
      expect((err as ApiError).attempts).toBe(1);
    }
    expect(sandbox.requests.filter((r) => r.path.endsWith('/activate'))).toHaveLength(3);
    const locked = await thrownBy(() => cards.activate(card.id, { expiry: '08/30', pin: '2468' }));
    expect(isApiError(locked, 'state_invalid')).toBe(true);
    expect((locked as ApiError<'state_invalid'>).extras).toMatchObject({ locked_until: sandbox.state.card(card.id)?.locked_until });
    expect(sandbox.state.card(card.id)?.status).toBe('unactivated');
  });

  it('a card not yet shipped: 500 api_error, not counted; once shipped, the right details activate it', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const card = sandbox.state.seedCard({
      member: m.id,
      form: 'physical',
      status: 'unactivated',
      inventory: 'in_stock',
      expiry: '08/30',
      pin: '2468',
    });
    const cards = client.member(m.id).cards;
    const err = await thrownBy(() => cards.activate(card.id, { expiry: '08/30', pin: '2468' }));
    expect(isApiError(err, 'api_error')).toBe(true);
    expect(sandbox.state.card(card.id)?.failures).toBe(0);
    const shipped = sandbox.state.seedCard({
      member: m.id,
      form: 'physical',
      status: 'unactivated',
      inventory: 'shipped',
      expiry: '08/30',
      pin: '2468',
    });
    expect(await cards.activate(shipped.id, { expiry: '08/30', pin: '2468' })).toEqual({ id: shipped.id, status: 'active' });
  });
});
