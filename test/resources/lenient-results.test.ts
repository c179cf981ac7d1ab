/**
 * Issue 23, points 5 and 6, on a hostile loopback server: a 2xx of an endpoint whose response the
 * spec does not show returns the body as received, whatever its `id`, `status` or other named
 * fields hold (typed fields are a convenience, never a gate: the money may have moved); where the
 * spec shows a shape, validation stays, and its amounts accept any plain decimal string, signs
 * included (the spec states no sign rule for them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { balanceTotal, ResponseValidationError, type MerchantClient } from '../../src/index.js';
import { looseListSchema } from '../../src/schemas/common.js';
import { ENDPOINTS, INTERNAL_ENDPOINT_IDS } from '../../src/facts/endpoints.js';
import { failure, wireClient } from '../helpers/client.js';
import { ORDER, WITHDRAWAL, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { balanceRow } from '../schemas/fixtures.js';
import { SAMPLES } from './samples.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url, { maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** Every endpoint whose response the spec does not show, and that a caller reaches. */
const NOT_SHOWN = ENDPOINTS.filter((e) => e.typing === 'loose' && !INTERNAL_ENDPOINT_IDS.includes(e.id));

/** Named fields of another type than the prose implies, on one object. */
const OFF_TYPE_OBJECTS: readonly Record<string, unknown>[] = [
  { id: 123, status: null, download_url: null, amount_editable: null, limits_updatable: 'no', amount: '-5.00' },
  { id: { nested: true }, status: { code: 'executed', at: 1 }, required_payer_fields: 'none' },
  { id: null, status: 7, extra: [1, '2'] },
];

describe('point 5: a 2xx of a shape the spec does not show comes back as received', () => {
  it('covers the endpoints the issue names', () => {
    const ids = NOT_SHOWN.map((e) => e.id);
    for (const id of [
      'member.qrpay.pay',
      'member.exchange.order',
      'member.cards.topUp',
      'member.deposits.declare',
      'member.withdrawals.confirm',
      'member.withdrawals.fail',
      'reports.retrieve',
      'member.qrpay.decode',
      'member.cards.retrieve',
      'member.remittances.list',
      'assets.list',
    ])
      expect(ids).toContain(id);
    expect(NOT_SHOWN).toHaveLength(35);
  });

  for (const e of NOT_SHOWN) {
    const sample = SAMPLES[e.id]!;
    const [method, url] = sample.request.split(' ') as [string, string];
    const path = url.split('?')[0]!;
    const list = e.response === looseListSchema;

    it(`${e.id}: ${list ? 'list items' : 'named fields'} of any type, status ${sample.status ?? 200}`, async () => {
      for (const body of OFF_TYPE_OBJECTS) {
        const reply = list ? { data: [body, { id: 5 }], next_cursor: null, has_more: false } : body;
        server.on(method, path, { status: sample.status ?? 200, body: reply });
        const result = await sample.call(client);
        if (list) {
          expect(result).toMatchObject({ shape: 'envelope', body: reply, data: reply.data });
        } else {
          expect(result).toEqual(body);
        }
      }
      expect(server.calls()).toHaveLength(OFF_TYPE_OBJECTS.length);
    });
  }
});

describe('point 5: where the spec shows a shape, validation stays', () => {
  it('a withdrawal order or a report list item with a numeric id is refused, with the path', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, id: 5 } });
    const err = await failure(client.member('m_1').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).issues[0]!.path).toEqual(['id']);
    server.on('GET', '/v1/reports', { body: { data: [{ id: 7 }], next_cursor: null, has_more: false } });
    expect(await failure(client.reports.list())).toBeInstanceOf(ResponseValidationError);
  });

  it('amounts accept any plain decimal string, signs included; exponents and blanks stay refused', async () => {
    for (const amount of ['-25.50', '+25.50', '-0', '25']) {
      server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, amount } });
      expect(await client.member('m_1').withdrawals.create(WITHDRAWAL)).toMatchObject({ amount });
    }
    for (const amount of ['2.5e1', '', '- 25', '25.', 'NaN']) {
      server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, amount } });
      expect(await failure(client.member('m_1').withdrawals.create(WITHDRAWAL)), amount).toBeInstanceOf(ResponseValidationError);
    }
  });
});

describe('point 6: a negative balance bucket', () => {
  it('balances.list() returns the row, and balanceTotal sums it as sent', async () => {
    const row = { ...balanceRow, frozen: '-1.00' };
    server.on('GET', '/v1/balances', { body: { data: [row], next_cursor: null, has_more: false, balances: [row] } });
    const rows = await client.member('m_1').balances.list();
    expect(rows).toEqual([row]);
    // 100 available - 1 frozen + 5.5 locked + 1.25 withdrawing.
    expect(balanceTotal(rows[0]!).toFixed()).toBe('105.75');
  });
});
