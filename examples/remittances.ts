/**
 * Remittances (`client.remittances` for merchant-level data, `client.member(id).remittances` for
 * the member's orders): corridors, the bank directory, a quote, a payee whose fields are
 * validated, an order waiting for reconfirmation after slippage (accept it), another one that
 * the member cancels (every hold returns), and the personal-line account application.
 *
 *   npx tsx examples/remittances.ts
 */
import { isApiError, isSlippageAction, isSupplementAction, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
const erin = sandbox.state.seedMember({ external_member_id: 'erin', kyc_level: 2, balances: { USDT: { available: '1000' } } });
// Two orders waiting on the member after the price moved at dispatch (simulator seeding).
const accepted = sandbox.state.seedRemittance({ member: erin.id, amount: '200', status: 'needs_reconfirm' });
const canceled = sandbox.state.seedRemittance({ member: erin.id, amount: '150', status: 'needs_reconfirm', extra_holds: ['3'] });
const client = sandbox.client();
const member = client.member('erin');

const usdt = async (): Promise<string> => {
  const row = (await member.balances.list()).find((r) => r.asset === 'USDT')!;
  return `available ${row.available}, locked ${row.locked}`;
};

try {
  // Corridors: one entry per clearing system; send `clearing_system` exactly as listed.
  const corridors = await client.remittances.corridors({ line: 'express' });
  console.log(`express corridors: ${corridors.map((c) => `${c.country}/${c.currency}`).join(', ')}`);
  const gb = corridors.find((c) => c.country === 'GB')!;
  const banks = await client.remittances.swiftSearch({ q: 'BARCGB22' });
  console.log(
    `bank directory: ${banks.unavailable ? 'unavailable' : banks.banks.map((b) => `${b.bank_name} (${b.swift_code})`).join(', ')}`,
  );

  const quote = await member.remittances.quote({ country: 'GB', currency: 'GBP', receive_amount: '100.00', source_asset: 'USDT' });
  if (!isLooseObject(quote)) throw new Error(`quote: not a JSON object (${JSON.stringify(quote)})`);
  console.log(
    `quote: ${String(quote['receive_amount'])} GBP costs ${String(quote['total'])} USDT (expires ${String(quote['expires_at'])})`,
  );

  // Payee fields come from the form schema; missing ones surface as invalid_fields with `fields`.
  const corridor = {
    country: gb.country,
    currency: gb.currency,
    payment_method: gb.payment_method,
    clearing_system: gb.clearing_systems[0]!,
  };
  const form = await member.remittances.payeeFormSchema(corridor);
  if (!isLooseObject(form)) throw new Error(`payee form: not a JSON object (${JSON.stringify(form)})`);
  console.log(`payee form for ${corridor.clearing_system}: ${(form['fields'] as Array<{ key: string }>).map((f) => f.key).join(', ')}`);
  try {
    await member.remittances.createPayee({ ...corridor, fields: { account_name: 'Erin Lee' } });
  } catch (err) {
    if (!isApiError(err, 'invalid_fields')) throw err;
    console.log(`payee refused: ${err.extras.fields?.map((f) => `${f.key} ${f.reason}`).join(', ')}`);
  }
  const payee = await member.remittances.createPayee({
    ...corridor,
    fields: { account_name: 'Erin Lee', account_number: '31926819', sort_code: '200000' },
  });
  console.log(`payee created: ${String(isLooseObject(payee) ? payee.id : payee)}`);

  // The member's orders, with for-await over the keyset cursor.
  for await (const order of member.remittances.list()) {
    if (isLooseObject(order)) console.log(`order ${String(order.id)}: ${String(order.status)}`);
  }
  console.log(`USDT before: ${await usdt()}`);

  // Pending action: branch on `action.kind`; show an unknown kind unchanged.
  const pending = await member.remittances.pendingAction(accepted.id);
  const action = pending.action;
  if (isSlippageAction(action)) {
    console.log(
      `slippage on ${pending.id}: moved ${action.moved_bps} bps, pay ${action.extra_charge} more (hold ${action.extra_locked}), can accept ${action.can_accept}`,
    );
    // Accept by sending new_total unchanged.
    const reconfirmed = await member.remittances.reconfirm(accepted.id, { new_total: action.new_total });
    console.log(`reconfirmed: ${String(isLooseObject(reconfirmed) ? reconfirmed.status : reconfirmed)}`);
  } else if (isSupplementAction(action)) {
    console.log(`documents requested: upload at ${action.submit_url}`);
  } else if (action !== null) {
    console.log(`action of an unknown kind: ${JSON.stringify(action)}`);
  }

  // Cancel (only from needs_reconfirm): the order's holds, every round's included, return.
  const result = await member.remittances.cancel(canceled.id.replace(/^rmt_/, '')); // rmt_ is optional
  console.log(`canceled ${result.id}: ${result.status}`);
  console.log(`USDT after: ${await usdt()}`);

  // Personal ('pobo') line: show the agreement in full, then apply (needs L1 and L2).
  const agreement = await client.remittances.agreement({ lang: 'en' });
  console.log(`agreement "${agreement.agreement.title}" (${agreement.agreement.lang})`);
  const application = await member.remittances.applyPersonalAccount();
  console.log(`personal account application ${application.id}: ${application.status}`);
  console.log('done');
} finally {
  await client.close();
}
