/**
 * Issue 15, cases 10 and 11, against a hostile loopback server: response amounts are plain
 * fixed-point decimals or the call fails typed (never a NaN, an Infinity or a wrong sum); sums are
 * exact at 18 decimals; a top-up note is sent whole at any length, since the spec has the service
 * truncate the merged note (with `reference_no`) at 300 characters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { balanceTotal, InvalidArgumentError, ResponseValidationError, toDecimal, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { balanceRow, topup } from '../schemas/fixtures.js';

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

const envelope = (row: Record<string, unknown>) => ({ data: [row], next_cursor: null, has_more: false });

describe('case 10: response amounts are plain fixed-point decimals, and totals are exact', () => {
  for (const bad of ['NaN', '1e9', '0x10', 'Infinity', '', '-', '+', '--1', '+-1', '1-', ' 1', '1.', '.5', '-.5', '- 1']) {
    it(`a balance bucket of ${JSON.stringify(bad)} fails validation instead of reaching a sum`, async () => {
      server.on('GET', '/v1/balances', { body: envelope({ ...balanceRow, frozen: bad }) });
      const error: unknown = await client
        .member('m_1')
        .balances.list()
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(JSON.stringify((error as ResponseValidationError).issues)).toContain('frozen');
    });
  }

  it('18-decimal buckets of 100 or more are summed exactly (20 significant digits would round them)', async () => {
    const row = {
      ...balanceRow,
      available: '123456789.123456789012345678',
      pending: '100.000000000000000001',
      frozen: '0.000000000000000001',
      isolated: '0',
      locked: '0',
      card: '0',
      earn: '99999999999999999999.999999999999999999',
      withdrawing: '0',
    };
    server.on('GET', '/v1/balances', { body: envelope(row) });
    const [got] = await client.member('m_1').balances.list();
    expect(balanceTotal(got!).toFixed()).toBe('100000000000123456889.123456789012345679');
    expect(toDecimal(row.available).plus(toDecimal(row.pending)).toFixed()).toBe('123456889.123456789012345679');
  });

  it('the helpers refuse what is not a plain decimal, with a typed error', () => {
    for (const bad of ['NaN', '1e9', '0x10', 'Infinity', '']) expect(() => toDecimal(bad)).toThrow(InvalidArgumentError);
    expect(() => balanceTotal({ ...balanceRow, card: 'NaN' })).toThrow(InvalidArgumentError);
    expect(toDecimal('-0.1').toFixed()).toBe('-0.1');
    expect(toDecimal('+0.1').toFixed()).toBe('0.1');
  });

  it('a signed bucket (the spec states no sign rule for balances) passes validation and is summed as sent', async () => {
    server.on('GET', '/v1/balances', { body: envelope({ ...balanceRow, frozen: '-1.00', locked: '+2' }) });
    const [got] = await client.member('m_1').balances.list();
    expect(got).toMatchObject({ frozen: '-1.00', locked: '+2' });
    // 100 available - 1 frozen + 2 locked + 1.25 withdrawing.
    expect(balanceTotal(got!).toFixed()).toBe('102.25');
  });
});

describe('case 11: a top-up note is sent whole; the service truncates the merged note at 300 characters', () => {
  const reference = 'FT-2026-000123456789';
  const bodies = () => server.calls().map((c) => c.body.toString('utf8'));

  it('note plus reference_no past 300 characters once merged, a 274-character merge, a 301-character note: each sent as given', async () => {
    server.on('POST', '/v1/merchant/topups', { status: 201, body: topup });
    const note = 'x'.repeat(260);
    await client.merchant.topups.create({ asset: 'USDT', channel: 'fiat', amount: '10', reference_no: reference, note });
    // 210 + 64 = 274 characters before the prefix: once refused for a 32-character reserve.
    await client.merchant.topups.create({ asset: 'USDT', amount: '10', reference_no: 'r'.repeat(64), note: 'n'.repeat(210) });
    await client.merchant.topups.create({ asset: 'USDT', channel: 'fiat', amount: '10', note: 'y'.repeat(301) });
    expect(bodies()).toEqual([
      `{"asset":"USDT","channel":"fiat","amount":"10","reference_no":"${reference}","note":"${note}"}`,
      `{"asset":"USDT","amount":"10","reference_no":"${'r'.repeat(64)}","note":"${'n'.repeat(210)}"}`,
      `{"asset":"USDT","channel":"fiat","amount":"10","note":"${'y'.repeat(301)}"}`,
    ]);
  });

  it('allowNoteTruncation (deprecated) has no effect either way and is never sent', async () => {
    server.on('POST', '/v1/merchant/topups', { status: 201, body: topup });
    const long = 'z'.repeat(400);
    for (const allowNoteTruncation of [true, false, undefined]) {
      await client.merchant.topups.create({ asset: 'USDT', amount: '10', reference_no: reference, note: long, allowNoteTruncation });
    }
    expect(bodies()).toEqual(Array(3).fill(`{"asset":"USDT","amount":"10","reference_no":"${reference}","note":"${long}"}`));
  });

  it('still refuses what the spec rules out: a reference_no over 64 characters, nothing sent', async () => {
    await expect(client.merchant.topups.create({ asset: 'USDT', amount: '10', reference_no: 'r'.repeat(65) })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'reference_no',
    });
    expect(server.calls()).toHaveLength(0);
  });
});
