/**
 * Issue 15, cases 3 and 4: what the spec does not show is accepted and passed through. The nine
 * name-only GETs assumed to be lists accept a list envelope, a bare array or any other JSON value
 * (the page says which); the other loosely typed endpoints accept any JSON value; the transitional
 * `balances` copy of `GET /v1/balances` is never validated.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLooseObject, type LooseItem, type LoosePage, type MerchantClient, type PagePromise } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { balanceRow } from '../schemas/fixtures.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** The nine name-only GETs the SDK exposes as lists, with the call that reaches each. */
const LISTS: ReadonlyArray<readonly [string, (c: MerchantClient) => PagePromise<unknown, LoosePage<unknown>>]> = [
  ['/v1/withdraw-addresses', (c) => c.member('m_1').withdrawals.addresses()],
  ['/v1/assets', (c) => c.assets.list()],
  ['/v1/merchant/lines', (c) => c.merchant.lines()],
  ['/v1/merchant/topups', (c) => c.merchant.topups.list()],
  ['/v1/merchant/balances', (c) => c.merchant.balances()],
  ['/v1/merchant/conversion-pairs', (c) => c.merchant.conversionPairs()],
  ['/v1/qrpay/schemes', (c) => c.member('m_1').qrpay.schemes()],
  ['/v1/remittances', (c) => c.member('m_1').remittances.list()],
  ['/v1/cards/products', (c) => c.member('m_1').cards.products()],
];

const LINES = { withdraw: { enabled: true, halted: false }, deposit: { enabled: false } };

describe('case 3: the nine name-only list GETs accept any JSON value', () => {
  for (const [path, call] of LISTS) {
    it(`GET ${path}: an object that is not an envelope, a bare array, null, a string, and an envelope`, async () => {
      // Not an envelope: one page without items, the body as received.
      server.on('GET', path, { body: LINES });
      const other = await call(client);
      expect(other).toMatchObject({ shape: 'other', body: LINES, data: [], has_more: false, next_cursor: null });
      expect(await call(client).collect(10)).toEqual([]);

      // A bare array: its elements are the items, and it is the only page.
      server.on('GET', path, { body: [{ id: 'x_1', line: 'withdraw' }, 'USDT', 7, null] });
      const array = await call(client);
      expect(array).toMatchObject({ shape: 'array', has_more: false, next_cursor: null });
      expect(await call(client).collect(10)).toEqual([{ id: 'x_1', line: 'withdraw' }, 'USDT', 7, null]);

      // null and a bare string pass through as the body.
      server.on('GET', path, { body: 'null' });
      await expect(call(client)).resolves.toMatchObject({ shape: 'other', body: null, data: [] });
      server.on('GET', path, { body: '"maintenance"' });
      await expect(call(client)).resolves.toMatchObject({ shape: 'other', body: 'maintenance' });

      // The envelope as before, its items any JSON value.
      const envelope = { data: [{ id: 'x_2', extra: [1] }, 'USDC'], next_cursor: null, has_more: false, seen: true };
      server.on('GET', path, { body: envelope });
      await expect(call(client)).resolves.toEqual({
        data: envelope.data,
        next_cursor: null,
        has_more: false,
        shape: 'envelope',
        body: envelope,
      });
      expect(server.calls().every((c) => c.url.startsWith(path))).toBe(true);
    });
  }

  it('the line check before a withdrawal is possible whatever shape the lines come in', async () => {
    server.on('GET', '/v1/merchant/lines', { body: LINES });
    const page = await client.merchant.lines();
    const body = page.body;
    const withdrawOn =
      isLooseObject(body as LooseItem) && (body as typeof LINES).withdraw.enabled && !(body as typeof LINES).withdraw.halted;
    expect(withdrawOn).toBe(true);
  });

  it('an item whose named fields are of another type than the prose implies (a numeric id) passes as received', async () => {
    const body = { data: [{ id: 'USDT' }, { id: 5, status: null }], next_cursor: null, has_more: false };
    server.on('GET', '/v1/assets', { body });
    expect(await client.assets.list().collect(10)).toEqual(body.data);
  });
});

describe('case 3: the other loosely typed endpoints accept any JSON value', () => {
  it('reads and writes answered with an array, null, a string, a number or nothing return it unchanged', async () => {
    server.on('GET', '/v1/merchant/pending', { body: [{ asset: 'USDT', amount: '1.5' }] });
    await expect(client.merchant.pending()).resolves.toEqual([{ asset: 'USDT', amount: '1.5' }]);
    server.on('GET', '/v1/kyc', { body: 'null' });
    await expect(client.member('m_1').kyc.status()).resolves.toBeNull();
    server.on('POST', '/v1/withdrawals/wdr_1/confirm', { body: '"confirmed"' });
    await expect(client.member('m_1').withdrawals.confirm('wdr_1')).resolves.toBe('confirmed');
    server.on('POST', '/v1/members/mem_1/suspend', { body: '' });
    await expect(client.members.suspend('mem_1')).resolves.toBeNull();
    server.on('GET', '/v1/cards/crd_1', { body: '42' });
    await expect(client.member('m_1').cards.retrieve('crd_1')).resolves.toBe(42);
    server.on('GET', '/v1/remittances/rmt_1', { body: { id: 'rmt_1', status: 'paid_out', amounts: { total: '1' } } });
    await expect(client.member('m_1').remittances.retrieve('rmt_1')).resolves.toEqual({
      id: 'rmt_1',
      status: 'paid_out',
      amounts: { total: '1' },
    });
  });
});

describe('case 4: the transitional balances copy is never validated', () => {
  it('balances.list() reads data even when the copy deviates or is not an array', async () => {
    for (const copy of [[{ asset: 'USDT' }], 'deprecated', null, [{ ...balanceRow, available: 'NaN' }]]) {
      server.on('GET', '/v1/balances', { body: { data: [balanceRow], next_cursor: null, has_more: false, balances: copy } });
      await expect(client.member('m_1').balances.list()).resolves.toEqual([balanceRow]);
      await expect(client.member('m_1').balances.envelope()).resolves.toMatchObject({ balances: copy });
    }
  });
});
