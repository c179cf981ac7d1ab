/**
 * The merchant's own prepaid account (`client.merchant`, `client.sandbox`, `client.assets`):
 * faucet credits, balances, lines, the conversion price list, a conversion with a slippage
 * floor, a top-up declaration and the deposit address.
 *
 * Runs against the sandbox simulator over a real loopback socket (`sandbox.listen()`), with an
 * ordinary `MerchantClient` on the default undici transport, exactly as in production.
 *
 *   npx tsx examples/merchant-account.ts
 */
import { randomUUID } from 'node:crypto';
import { isApiError, MerchantClient, isLooseObject, type LooseItem } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
const server = await sandbox.listen({ port: 0 });
const client = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials });

try {
  // The faucet credits the merchant prepaid account (sandbox only). The same key repeats the
  // same credit with `duplicated: true` and posts nothing new.
  const key = randomUUID();
  const credit = await client.sandbox.faucet({ asset: 'USDT', amount: '5000' }, { idempotencyKey: key });
  const again = await client.sandbox.faucet({ asset: 'USDT', amount: '5000' }, { idempotencyKey: key });
  console.log(
    `faucet: +${credit.credited} ${credit.asset} (journal ${credit.journal_id}); same key again -> duplicated=${String(again.duplicated)}`,
  );

  const assets = await client.assets.list();
  // Loosely typed items: any JSON value, and an object's fields are `unknown` until checked.
  const codeOf = (a: LooseItem): string => {
    const code = isLooseObject(a) ? (a['code'] ?? a['asset'] ?? a.id) : a;
    return typeof code === 'string' ? code : JSON.stringify(code);
  };
  console.log(`assets: ${assets.data.map(codeOf).join(', ')}`);

  // Name-only endpoints: the spec does not show their shape. A list envelope, a bare array or any
  // other JSON value is accepted; `shape` says which, and `body` is the whole answer.
  for await (const row of client.merchant.balances()) {
    if (isLooseObject(row)) console.log(`prepaid ${String(row['asset'])}: available ${String(row['available'])}`);
  }
  const lines = await client.merchant.lines();
  if (lines.shape === 'other') console.log(`lines (not a list): ${JSON.stringify(lines.body)}`);
  console.log(
    `lines: ${lines.data
      .filter(isLooseObject)
      .map((l) => `${String(l['line'])}=${l['enabled'] ? 'on' : 'off'}`)
      .join(' ')}`,
  );
  const pairs = await client.merchant.conversionPairs().collect(100);
  console.log(`conversion price list: ${pairs.length} directions`);

  // A conversion is atomic and irreversible. `min_to_amount` is the slippage floor.
  const { data: conversion, response } = await client.merchant.conversions
    .create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '1000', min_to_amount: '990' })
    .withResponse();
  console.log(
    `conversion ${conversion.id}: ${conversion.from_amount} ${conversion.from_asset} -> ${conversion.to_amount} ${conversion.to_asset} (fee ${conversion.fee_amount} ${conversion.fee_asset}, key ${response.idempotencyKey})`,
  );

  // Below the floor the whole conversion is rejected; a business failure needs a new key.
  try {
    await client.merchant.conversions.create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '100', min_to_amount: '1000' });
  } catch (err) {
    if (!isApiError(err, 'amount_out_of_range')) throw err;
    console.log(`conversion below the floor refused: ${err.code} (request ${err.requestId})`);
  }

  // A top-up declaration changes no balance: it registers a pending declaration.
  const topup = await client.merchant.topups.create({ asset: 'USDT', channel: 'fiat', amount: '2500.00', reference_no: 'INV-2026-0042' });
  console.log(`top-up declared: ${topup.id} ${topup.amount_text} ${topup.asset} via ${topup.channel}, status ${topup.status}`);
  const declared = await client.merchant.topups.list({ limit: 10 });
  console.log(`top-up declarations on the first page: ${declared.data.length}`);

  const address = await client.merchant.depositAddress({ asset: 'USDT' });
  if (!isLooseObject(address)) throw new Error(`deposit address: not a JSON object (${JSON.stringify(address)})`);
  console.log(`deposit address for USDT: ${String(address['address'])}`);
  console.log('done');
} finally {
  await client.close();
  await server.close();
}
