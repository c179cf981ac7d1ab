/**
 * The simulator keeps its own endpoint table (`src/testing/routes`), so that at run time it
 * imports nothing of the client's. This test compares the two tables at test time: every
 * difference must be one decided below (docs/testing.md, "The simulator's endpoint table"), so
 * a new one fails here until someone decides it.
 *
 * A client flag maps to a simulator mode: `memberScoped` true is `required` (`optional` with
 * `memberOptional`) and false `none`; `idempotent` likewise. `optional` means the simulator honours the header when sent and does
 * not require it; `none` means it ignores it.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, NAME_ONLY_ENDPOINTS } from '../../src/facts/endpoints.js';
import { ALL_ROUTES } from '../../src/testing/routes/index.js';

type Mode = 'required' | 'optional' | 'none';

/** Each decided difference: the client's flag, the simulator's mode, and why both stand. */
const DECIDED: Record<string, { readonly flag: 'member' | 'idempotency'; readonly sim: Mode; readonly why: string }> = {
  'member GET /v1/withdraw-addresses': {
    flag: 'member',
    sim: 'optional',
    why: 'without a member the merchant-wide addresses are listed; with one, that member’s and the shared ones',
  },
  'member GET /v1/qrpay/schemes': { flag: 'member', sim: 'none', why: 'the supported standards are the merchant’s, whoever asks' },
  'member POST /v1/qrpay/decode': { flag: 'member', sim: 'optional', why: 'decoding reads no member data; a member sent is still checked' },
  'member POST /v1/remit/quotes': { flag: 'member', sim: 'optional', why: 'a quote prices a corridor; a member sent is still checked' },
  'member GET /v1/remit/payee-form-schema': { flag: 'member', sim: 'none', why: 'the form depends on the corridor only' },
  'member GET /v1/cards/products': { flag: 'member', sim: 'none', why: 'the product list is the merchant’s' },
  'idempotency POST /v1/merchant/deposit-address': {
    flag: 'idempotency',
    sim: 'optional',
    why: 'the address is one per asset and network, so asking again returns it; a key is honoured, not needed',
  },
  'idempotency POST /v1/kyc/sessions': {
    flag: 'idempotency',
    sim: 'optional',
    why: 'a session holds nothing; a key sent replays the first one',
  },
  'idempotency POST /v1/remit/quotes': {
    flag: 'idempotency',
    sim: 'none',
    why: 'a quote holds no funds: a retried quote is a new quote (the SDK’s key is ignored)',
  },
  'idempotency POST /v1/exchange/quotes': { flag: 'idempotency', sim: 'none', why: 'as remit quotes, locked or not' },
  'idempotency POST /v1/members/{id}/suspend': {
    flag: 'idempotency',
    sim: 'optional',
    why: 'suspending is inherently idempotent (the client sends no key); a key sent is honoured',
  },
};

/** Routes the simulator serves beyond the client's table (shapes of its own; docs/testing.md). */
const SIMULATOR_ONLY = [
  'GET /v1/members',
  'GET /v1/members/{id}',
  'GET /v1/withdrawals/{id}',
  'GET /v1/exchange/orders/{id}',
  'GET /v1/shipping-addresses',
  'POST /v1/shipping-addresses',
  'DELETE /v1/shipping-addresses/{id}',
];

const template = (path: string): string => path.replace(/:(\w+)/g, '{$1}');
const routes = new Map(ALL_ROUTES.map((r) => [`${r.method} ${template(r.path)}`, r]));
const expected = (flag: boolean, optional = false): Mode => (optional ? 'optional' : flag ? 'required' : 'none');

function differences(): Record<string, { flag: 'member' | 'idempotency'; sim: Mode }> {
  const out: Record<string, { flag: 'member' | 'idempotency'; sim: Mode }> = {};
  for (const e of ENDPOINTS) {
    const r = routes.get(`${e.method} ${e.path}`);
    if (!r) continue;
    if (r.member !== expected(e.memberScoped, e.memberOptional)) out[`member ${e.method} ${e.path}`] = { flag: 'member', sim: r.member };
    if (r.idempotency !== expected(e.sendsKey)) out[`idempotency ${e.method} ${e.path}`] = { flag: 'idempotency', sim: r.idempotency };
  }
  return out;
}

describe('the simulator’s endpoint table against the client’s', () => {
  it('covers every endpoint of the client’s table (the token exchange is served before routing)', () => {
    const missing = ENDPOINTS.filter((e) => !routes.has(`${e.method} ${e.path}`)).map((e) => `${e.method} ${e.path}`);
    expect(missing).toEqual(['POST /v1/connect/token']);
    const extra = [...routes.keys()].filter((k) => !ENDPOINTS.some((e) => `${e.method} ${e.path}` === k));
    expect(extra.sort()).toEqual([...SIMULATOR_ONLY].sort());
  });

  it('differs only where decided, and only on endpoints the spec names without a shape', () => {
    const actual = differences();
    expect(actual).toEqual(Object.fromEntries(Object.entries(DECIDED).map(([k, d]) => [k, { flag: d.flag, sim: d.sim }])));
    const nameOnly = new Set(NAME_ONLY_ENDPOINTS.map((e) => `${e.method} ${e.path}`));
    for (const key of Object.keys(actual)) expect(nameOnly.has(key.replace(/^\w+ /, '')), key).toBe(true);
  });

  it('accepts every request the client builds: nothing the client omits is required by the simulator', () => {
    for (const e of ENDPOINTS) {
      const r = routes.get(`${e.method} ${e.path}`);
      if (!r) continue;
      if (!e.memberScoped || e.memberOptional === true) expect(r.member, `${e.method} ${e.path}`).not.toBe('required');
      if (!e.sendsKey) expect(r.idempotency, `${e.method} ${e.path}`).not.toBe('required');
    }
  });

  it('requires the scope the spec names wherever the client’s table names one, and no scope anywhere else', () => {
    for (const e of ENDPOINTS) {
      const r = routes.get(`${e.method} ${e.path}`);
      if (r) expect(r.scope, `${e.method} ${e.path}`).toBe(e.scope);
    }
    // The simulator's own reads and the address book: no scope the spec would have to name.
    for (const key of SIMULATOR_ONLY) expect(routes.get(key)?.scope, key).toBeUndefined();
  });
});
