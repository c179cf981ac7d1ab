/**
 * Cards (`client.member(id).cards`): products and a quote, a virtual card application, top-up,
 * spending limits, the close precheck, unfreezing, and activating a physical card, where the SDK
 * checks the input before sending and never retries a failure (three mismatches lock the card
 * for 24 hours).
 *
 *   npx tsx examples/cards.ts
 */
import { InvalidArgumentError, isApiError, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
const dan = sandbox.state.seedMember({ external_member_id: 'dan', kyc_level: 1, balances: { USDT: { available: '200' } } });
const client = sandbox.client();
const cards = client.member('dan').cards;

try {
  const products = await cards.products();
  // Shapes the spec does not show come back as received: narrow them before reading a field.
  console.log(
    `products: ${products.data
      .filter(isLooseObject)
      .map((p) => String(p.id))
      .join(', ')}`,
  );
  const quote = await cards.productQuote('cpd_sbx_virtual_usd'); // the cpd_ prefix is optional
  if (!isLooseObject(quote)) throw new Error(`quote: not a JSON object (${JSON.stringify(quote)})`);
  console.log(`virtual card quote: total ${String(quote['total'])}, kyc satisfied ${String(quote['kyc_satisfied'])}`);

  // Apply: the virtual card is issued and funded from the member's available balance.
  const application = await cards.apply({ card_product_id: 'sbx_virtual_usd' });
  if (!isLooseObject(application)) throw new Error(`application: not a JSON object (${JSON.stringify(application)})`);
  const cardId = String(application['card_id']);
  const card = await cards.retrieve(cardId);
  if (!isLooseObject(card)) throw new Error(`card: not a JSON object (${JSON.stringify(card)})`);
  console.log(`applied ${String(application.id)} -> card ${card.id} is ${card.status}, balance ${String(card['balance'])}`);

  // A top-up 201 only acknowledges the order; spending is enabled on card.topup.credited.
  const topup = await cards.topUp(cardId, { amount: '25' });
  if (!isLooseObject(topup)) throw new Error(`top-up: not a JSON object (${JSON.stringify(topup)})`);
  console.log(`top-up ${String(topup.id)}: ${String(topup.status)}`);

  // Limits: decimal strings, single <= daily <= monthly (0 = no limit at this layer).
  const limits = await cards.updateLimits(cardId, { single: '100', daily: '300', monthly: '1000' });
  console.log(`limits recorded: ${limits.accepted}`);
  try {
    await cards.updateLimits(cardId, { single: '500', daily: '300' });
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
    console.log(`inconsistent limits refused before sending: ${err.message}`);
  }

  // The close precheck is camelCase and in minor units at `scale`.
  const check = await cards.closeCheck(cardId);
  console.log(
    `close check: balance ${check.balance} (scale ${check.scale} ${check.currency}), authHeld ${check.authHeld}, canClose ${check.canClose}, phase ${check.closePhase}`,
  );

  // Unfreeze works only from exactly `frozen`.
  const frozen = sandbox.state.seedCard({ member: dan.id, status: 'frozen' });
  const unfrozen = await cards.unfreeze(frozen.id);
  console.log(`unfreeze ${frozen.id}: ${unfrozen.status}`);

  // Activation of a physical card. A malformed expiry never leaves the process.
  const physical = sandbox.state.seedCard({ member: dan.id, form: 'physical', expiry: '08/29', pin: '2468' });
  try {
    await cards.activate(physical.id, { expiry: '2029-08', pin: '2468' });
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
    console.log(`activation refused locally: ${err.argument} must be MM/YY`);
  }
  // A details mismatch is a 500 that counts toward the lock: raised after one attempt, no retry.
  try {
    await cards.activate(physical.id, { expiry: '08/29', pin: '0000' });
  } catch (err) {
    if (!isApiError(err, 'api_error')) throw err;
    console.log(`wrong PIN: ${err.code} after ${err.attempts} attempt; failures counted: ${sandbox.state.card(physical.id)?.failures}`);
  }
  const active = await cards.activate(physical.id, { expiry: '08/29', pin: '2468' });
  console.log(`activated ${active.id}: ${active.status}`);
  console.log('done');
} finally {
  await client.close();
}
