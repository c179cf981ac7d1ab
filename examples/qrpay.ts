/**
 * QR-code payments (`client.member(id).qrpay`): supported schemes, decode, quote (indicative,
 * holds no funds), pay, a custom-amount code and a code that cannot be decoded.
 *
 * Sandbox QR payloads are a simulator convention: `sbxqr:<payee>:<CURRENCY>:<amount>` is a
 * fixed-amount code and `sbxqr:<payee>:<CURRENCY>:open` a custom-amount one.
 *
 *   npx tsx examples/qrpay.ts
 */
import { isApiError, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
sandbox.state.seedMember({ external_member_id: 'bob', balances: { USDT: { available: '5' }, USDC: { available: '80' } } });
const client = sandbox.client();
const bob = client.member('bob');

try {
  const schemes = await bob.qrpay.schemes();
  console.log(`schemes: ${schemes.data.map((s) => String(isLooseObject(s) ? s['scheme'] : s)).join(', ')}`);

  const code = 'sbxqr:Noodle Bar:THB:360.00';
  const decoded = await bob.qrpay.decode({ code_value: code });
  if (!isLooseObject(decoded)) throw new Error(`decoded code: not a JSON object (${JSON.stringify(decoded)})`);
  console.log(
    `decoded: amount_editable=${String(decoded.amount_editable)}, required_payer_fields=${JSON.stringify(decoded.required_payer_fields ?? [])}`,
  );

  // The quote picks an asset from the member's payment priorities; USDT is first but too low here.
  const quote = await bob.qrpay.quote({ code_value: code });
  console.log(`quote: pay ${quote.payee} ${quote.acquirer_amount} ${quote.acquirer_currency} (expires ${quote.expires_at || 'not given'})`);
  for (const option of quote.options) {
    console.log(`  option ${option.asset}: ${option.customer_total} incl. fee ${option.fee}, sufficient=${option.sufficient}`);
  }
  console.log(`  chosen ${quote.chosen.asset}${quote.blocked_reason ? `, blocked: ${quote.blocked_reason}` : ''}`);

  // Paying obtains a fresh quote: the amount may differ from customer_total by a few minor units.
  const payment = await bob.qrpay.pay({ code_value: code });
  if (!isLooseObject(payment)) throw new Error(`payment: not a JSON object (${JSON.stringify(payment)})`);
  console.log(`paid: ${String(payment.status)} ${String(payment['amount'])} ${String(payment['asset'])}`);
  const usdc = (await bob.balances.list()).find((r) => r.asset === 'USDC')!;
  console.log(`USDC available after paying: ${usdc.available}`);

  // Custom-amount codes take a fiat `currency` and `amount` (never a digital-asset amount).
  const open = await bob.qrpay.quote({ code_value: 'sbxqr:Flower Shop:SGD:open', currency: 'SGD', amount: '13.50' });
  console.log(`custom amount: ${open.acquirer_amount} ${open.acquirer_currency} -> ${open.chosen.customer_total} ${open.chosen.asset}`);

  try {
    await bob.qrpay.quote({ code_value: 'not-a-qr-code' });
  } catch (err) {
    if (!isApiError(err, 'qr_code_invalid')) throw err;
    console.log(`unreadable code: ${err.code}`);
  }
  console.log('done');
} finally {
  await client.close();
}
