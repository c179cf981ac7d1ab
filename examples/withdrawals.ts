/**
 * Withdrawals (`client.member(id).withdrawals`): debit `available` into `withdrawing`, pay
 * on-chain yourself, then confirm (the hold clears) or fail (the funds return). Also: the address
 * book, a refused debit, an ambiguous 504 that the SDK retries with the same idempotency key so
 * the member is debited exactly once, and a confirm without a member (`client.withdrawals`) for a
 * member suspended after the debit.
 *
 *   npx tsx examples/withdrawals.ts
 */
import { isApiError, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
const alice = sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '300' } } });
sandbox.state.seedWithdrawAddress({
  member: alice.id,
  asset: 'USDT',
  network: 'TRON',
  address: 'TQ7x1Vb9aliceWallet',
  label: 'Alice main',
  usable: true,
});
const client = sandbox.client();
const member = client.member('alice');

const buckets = async (label: string): Promise<void> => {
  const usdt = (await member.balances.list()).find((r) => r.asset === 'USDT')!;
  console.log(`  ${label.padEnd(22)} available ${usdt.available}  withdrawing ${usdt.withdrawing}`);
};

try {
  // Use a registered address with usable=true: the debit endpoint itself does not check the book.
  const addresses = await member.withdrawals.addresses();
  const to = addresses.data.filter(isLooseObject).find((a) => a['usable'] === true)!;
  console.log(`address book: ${String(to['label'])} ${String(to['address'])}`);
  await buckets('start');

  // 1. Debit. The idempotency key is the only duplicate-debit protection: keep it with your order.
  const { data: order, response } = await member.withdrawals
    .create({ asset: 'USDT', amount: '100', to_address: String(to['address']) })
    .withResponse();
  console.log(`debited ${order.amount} ${order.asset}: ${order.id} is ${order.status} (key ${response.idempotencyKey})`);
  await buckets('after debit');

  // 2. After the on-chain payment succeeded: confirm.
  await member.withdrawals.confirm(order.id);
  await buckets('after confirm');

  // 3. Another debit whose on-chain payment failed: fail returns the funds.
  const second = await member.withdrawals.create({ asset: 'USDT', amount: '50', to_address: String(to['address']) });
  await buckets('after second debit');
  await member.withdrawals.fail(second.id);
  await buckets('after fail');

  // 4. A business failure is never retried; correct it and call again with a new key.
  try {
    await member.withdrawals.create({ asset: 'USDT', amount: '1000', to_address: String(to['address']) });
  } catch (err) {
    if (!isApiError(err, 'insufficient_balance')) throw err;
    console.log(`refused: ${err.code} (retry class ${err.retryClass}, ${err.attempts} attempt)`);
  }

  // 5. The service executes the debit but the answer is lost (504 after execution). The SDK
  //    retries with the same key; the service replays the stored result. One debit, not two.
  sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });
  const before = sandbox.state.countEffects('withdrawal.create');
  const { data: third, response: meta } = await member.withdrawals
    .create({ asset: 'USDT', amount: '10', to_address: String(to['address']) })
    .withResponse();
  const sent = sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/withdrawals').slice(-2);
  console.log(
    `after a 504: ${third.id} in ${meta.attempts} attempts, replayed=${meta.replayed}, same key on both: ${sent[0]?.headers['x-idempotency-key'] === sent[1]?.headers['x-idempotency-key']}`,
  );
  console.log(`debits executed by the service for that call: ${sandbox.state.countEffects('withdrawal.create') - before}`);
  await buckets('end');

  // 6. A member suspended after the debit answers member_not_found to calls on its behalf; confirm
  //    and fail also work without naming a member (no x-on-behalf-of), so the funds never strand.
  const last = await member.withdrawals.create({ asset: 'USDT', amount: '5', to_address: String(to['address']) });
  await client.members.suspend(alice.id);
  const before5 = sandbox.state.balance(alice.id, 'USDT')?.withdrawing;
  await client.withdrawals.confirm(last.id);
  const after5 = sandbox.state.balance(alice.id, 'USDT')?.withdrawing;
  console.log(`suspended member, confirmed without naming it: withdrawing ${before5} -> ${after5}`);
  console.log('done');
} finally {
  await client.close();
}
