/**
 * QR codes seeded over HTTP, as a test in another language does it: `POST /__sandbox/qr-codes`
 * or the seed file's `qr_codes`, then a hand-signed quote and payment of that payload. What the
 * member was debited is read back through the admin API.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox, type SandboxSeed } from '../../src/testing/index.js';
import { servedWorlds } from '../testing/served.js';
import { adminGet, adminSend, rawCaller } from './raw.js';

const serve = servedWorlds();

/** Micro-units of a decimal string with at most 6 decimals, for exact sums. */
function micros(amount: string): bigint {
  const [whole = '0', frac = ''] = amount.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
}

describe('POST /__sandbox/qr-codes', () => {
  it('a fixed-amount code with a chosen payload is decoded, quoted and paid over raw HTTP; the member pays the quoted total', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'kim', balances: { USDC: { available: '80' } } });
    const seeded = await adminSend<{ code_value: string }>(server, 'POST', '/__sandbox/qr-codes', {
      code_value: 'shop-42',
      payee: 'Kopi Corner',
      currency: 'THB',
      amount: '360',
    });
    expect(seeded).toEqual({ status: 201, body: { code_value: 'shop-42' } });

    const call = await rawCaller(sandbox, server);
    const body = JSON.stringify({ code_value: 'shop-42' });
    const decoded = await call({ path: '/v1/qrpay/decode', body, member: 'kim' });
    expect(decoded).toMatchObject({
      status: 200,
      body: { payee: 'Kopi Corner', currency: 'THB', amount: '360.00', amount_editable: false, required_payer_fields: [] },
    });
    const quote = await call({ path: '/v1/qrpay/quotes', body, member: 'kim' });
    expect(quote).toMatchObject({ status: 200, body: { payee: 'Kopi Corner', acquirer_currency: 'THB', acquirer_amount: '360.00' } });
    const chosen = quote.body['chosen'] as { asset: string; customer_total: string; sufficient: boolean };
    expect(chosen).toMatchObject({ asset: 'USDC', sufficient: true });

    const paid = await call({ path: '/v1/qrpay/payments', body, member: 'kim' });
    expect(paid).toMatchObject({
      status: 201,
      body: { status: 'completed', asset: 'USDC', payee: 'Kopi Corner', acquirer_amount: '360.00' },
    });
    const amount = String(paid.body['amount']);
    expect(micros(amount)).toBe(micros(chosen.customer_total));
    const rows = await adminGet<{ data: Array<{ asset: string; available: string }> }>(server, '/__sandbox/members/kim/balances');
    expect(micros(rows.data.find((r) => r.asset === 'USDC')!.available)).toBe(micros('80') - micros(amount));
    expect(sandbox.state.countEffects('qrpay.payment')).toBe(1);
  });

  it('without code_value the payload is generated and answered; a custom amount is held to the seeded bounds', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'kim', balances: { USDT: { available: '100' } } });
    const seeded = await adminSend<{ code_value: string }>(server, 'POST', '/__sandbox/qr-codes', {
      currency: 'SGD',
      min_amount: '1',
      max_amount: '50',
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body.code_value).toMatch(/^sbxqr-seeded:[0-9a-f]+$/);
    const call = await rawCaller(sandbox, server);
    const code = seeded.body.code_value;
    const within = await call({
      path: '/v1/qrpay/quotes',
      member: 'kim',
      body: JSON.stringify({ code_value: code, currency: 'SGD', amount: '13.50' }),
    });
    expect(within).toMatchObject({ status: 200, body: { acquirer_currency: 'SGD', acquirer_amount: '13.50' } });
    const above = await call({
      path: '/v1/qrpay/quotes',
      member: 'kim',
      body: JSON.stringify({ code_value: code, currency: 'SGD', amount: '51' }),
    });
    expect(above).toMatchObject({ status: 400, body: { code: 'amount_out_of_range' } });
    const paid = await call({
      path: '/v1/qrpay/payments',
      member: 'kim',
      body: JSON.stringify({ code_value: code, currency: 'SGD', amount: '13.50' }),
    });
    expect(paid).toMatchObject({ status: 201, body: { status: 'completed', acquirer_amount: '13.50' } });
  });

  it('refuses a mistyped or unknown field by name, and registers nothing', async () => {
    const { sandbox, server } = await serve();
    const cases: Array<[unknown, string]> = [
      [{ currency: 5 }, 'QR code currency must be a non-empty string'],
      [{ amount: true }, 'QR code amount must be a decimal string'],
      [{ required_payer_fields: 'mobile' }, 'QR code required_payer_fields must be a list of strings'],
      [{ amount_editable: 'no' }, 'QR code amount_editable must be true or false'],
      [{ ammount: '10' }, 'unknown QR code field ammount'],
      [{ currency: 'XYZ' }, 'no fiat rate for XYZ'],
      [{ code_value: 'x', amount_editable: false }, 'a fixed-amount QR code needs an amount'],
    ];
    for (const [body, message] of cases) {
      const res = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/qr-codes', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
    }
    const call = await rawCaller(sandbox, server);
    const decoded = await call({ path: '/v1/qrpay/decode', body: JSON.stringify({ code_value: 'x' }) });
    expect(decoded).toMatchObject({ status: 400, body: { code: 'qr_code_invalid' } });
  });
});

describe('the payload conventions of docs/sandbox-server.md ("QR codes"), with no seeding', () => {
  it('sbxqr fixed and open, sbxqr-payer, EMVCo 000201 decode as documented; anything else is qr_code_invalid', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'kim', balances: { USDT: { available: '100' } } });
    const call = await rawCaller(sandbox, server);
    const decode = (code: string): ReturnType<typeof call> =>
      call({ path: '/v1/qrpay/decode', body: JSON.stringify({ code_value: code }) });
    expect((await decode('sbxqr:Noodle Bar:THB:360.00')).body).toMatchObject({
      payee: 'Noodle Bar',
      currency: 'THB',
      amount: '360.00',
      amount_editable: false,
      required_payer_fields: [],
    });
    expect((await decode('sbxqr:Flower Shop:SGD:open')).body).toMatchObject({ amount: null, amount_editable: true });
    expect((await decode('sbxqr-payer:Clinic:SGD:10')).body).toMatchObject({ required_payer_fields: ['custName', 'mobile'] });
    expect((await decode('00020101021229370016A000000677010111')).body).toMatchObject({
      scheme: 'EMVCO',
      payee: 'Sandbox Cafe',
      currency: 'THB',
      amount: '100.00',
    });
    for (const bad of ['sbxqr:Shop:thb:10', 'sbxqr:Shop:XYZ:10', 'hello']) {
      expect(await decode(bad), bad).toMatchObject({ status: 400, body: { code: 'qr_code_invalid' } });
    }
    const payer = await call({
      path: '/v1/qrpay/quotes',
      member: 'kim',
      body: JSON.stringify({ code_value: 'sbxqr-payer:Clinic:SGD:10' }),
    });
    expect(payer).toMatchObject({ status: 400, body: { code: 'product_not_available' } });
  });
});

describe('qr_codes in a seed', () => {
  const seed: SandboxSeed = {
    members: [{ external_member_id: 'kim', balances: { USDC: { available: '80' } } }],
    qr_codes: [{ code_value: 'table-7', payee: 'Noodle Bar', currency: 'THB', amount: '360' }],
  };

  it('POST /__sandbox/seed answers the payloads; the code is paid over raw HTTP', async () => {
    const { sandbox, server } = await serve();
    const res = await adminSend<{ members: string[]; qr_codes: string[] }>(server, 'POST', '/__sandbox/seed', seed);
    expect(res).toMatchObject({ status: 201, body: { qr_codes: ['table-7'] } });
    const call = await rawCaller(sandbox, server);
    const paid = await call({ path: '/v1/qrpay/payments', member: 'kim', body: JSON.stringify({ code_value: 'table-7' }) });
    expect(paid).toMatchObject({ status: 201, body: { status: 'completed', payee: 'Noodle Bar' } });
    const bad = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/seed', { qr_codes: [{ payee: 7 }] });
    expect(bad).toEqual({ status: 400, body: { error: 'seed: qr_codes[0]: sandbox: QR code payee must be a non-empty string' } });
  });

  it("the seed option (the command's --seed) registers the code again after a reset", async () => {
    const { sandbox, server } = await serve({ sandbox: { seed } });
    await adminSend(server, 'POST', '/__sandbox/reset');
    const call = await rawCaller(sandbox, server);
    const decoded = await call({ path: '/v1/qrpay/decode', body: JSON.stringify({ code_value: 'table-7' }) });
    expect(decoded).toMatchObject({ status: 200, body: { payee: 'Noodle Bar', amount: '360.00' } });
    expect(() => createSandbox({ seed: { qr_codes: [{ currency: 'XYZ' }] } })).toThrow('seed: qr_codes[0]: sandbox: no fiat rate for XYZ');
  });
});
