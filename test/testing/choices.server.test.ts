/**
 * Where the spec is silent the sandbox chooses (docs/testing.md, "Where the sandbox chooses"):
 * `limit` above 100 and the six required shipping-address items, through the SDK over server
 * mode. The other choices are pinned beside their endpoints (withdrawals, remit, KYC).
 */
import { describe, expect, it } from 'vitest';
import { isApiError, type ApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();

describe('pagination limit (sandbox choice)', () => {
  it('a limit above 100 is served as 100; a limit that is not a positive integer is invalid_request', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.seedReports(130);
    // The SDK sends a limit above 100 as given (one-truth.test.ts walks both sides); so does a raw request.
    const page = await client.request<{ data: unknown[]; has_more: boolean }>({
      method: 'GET',
      path: '/v1/reports',
      query: { limit: 150 },
    });
    expect(page.data).toHaveLength(100);
    expect(page.has_more).toBe(true);
    expect((await client.reports.list({ limit: 150 })).data).toHaveLength(100);
    for (const limit of ['0', '2.5', 'abc']) {
      const err = await thrownBy(() => client.request({ method: 'GET', path: '/v1/reports', query: { limit } }));
      expect(isApiError(err, 'invalid_request')).toBe(true);
    }
  });
});

describe('PATCH /v1/shipping-addresses/{id}: the six required items (sandbox choice)', () => {
  const full = {
    country: 'SG',
    recipient_last: 'Tan',
    recipient_first: 'Mei',
    phone_code: '+65',
    phone_number: '81234567',
    city: 'Singapore',
    line1: '1 Marina Boulevard',
    line2: '#10-01',
    postal_code: '018989',
  };

  it('country, recipient_last, recipient_first, phone_number, city, line1 are required; the rest may be cleared', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const id = sandbox.state.seedAddress(m.id, full, true);
    const addresses = client.member(m.id).shippingAddresses;
    const updated = await addresses.update(id, { ...full, phone_code: '', line2: '', postal_code: '' });
    expect(updated).toMatchObject({ id, line2: '', phone_code: '', postal_code: '', is_default: true });
    const err = await thrownBy(() => addresses.update(id, { line2: 'only this' }));
    expect(isApiError(err, 'invalid_fields')).toBe(true);
    const fields = (err as ApiError<'invalid_fields'>).extras.fields ?? [];
    expect(fields.map((f) => f.key)).toEqual(['country', 'recipient_last', 'recipient_first', 'phone_number', 'city', 'line1']);
    expect(fields.every((f) => f.reason === 'required')).toBe(true);
  });
});
