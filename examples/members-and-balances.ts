/**
 * Members and their eight balance buckets (`client.members`, `client.member(id).balances`,
 * `client.member(id).deposits`): create a member, credit it, read its buckets, total them with
 * the money helpers, and see what a suspended member looks like.
 *
 *   npx tsx examples/members-and-balances.ts
 */
import { balanceTotal, formatAmount, InvalidArgumentError, isApiError, toDecimal, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
// `sandbox.client()` is an ordinary MerchantClient wired to the simulator in-process (fetch
// transport, no socket, no msw).
const client = sandbox.client();

try {
  // Members are addressed by the merchant's external id or by the service's mem_<uuid>.
  const created = await client.members.create({ external_member_id: 'shop-user-42' });
  // The member record's shape is not shown by the spec: narrow it before reading `id`.
  if (!isLooseObject(created)) throw new Error(`member: not a JSON object (${JSON.stringify(created)})`);
  console.log(`member created: ${String(created.id)} (external id shop-user-42)`);
  const member = client.member('shop-user-42');

  // A member who never received funds has no rows at all.
  console.log(`balances before any deposit: ${(await member.balances.list()).length} rows`);

  await member.deposits.declare({ asset: 'USDT', amount: '120.50' });
  await member.deposits.declare({ asset: 'btc', amount: '0.015' }); // asset codes are case-insensitive
  // The simulator can also seed any bucket directly, e.g. a dispute hold.
  sandbox.state.setBalance('shop-user-42', 'USDT', { frozen: '4.5', isolated: '1' });

  for (const row of await member.balances.list()) {
    // Amounts are decimal strings at ledger_scale; display_scale is for display only.
    const total = balanceTotal(row);
    console.log(
      `${row.asset}: available ${row.available}, frozen ${row.frozen}, isolated ${row.isolated}, withdrawing ${row.withdrawing}` +
        ` | total ${total.toFixed()} (shown as ${formatAmount(total.toFixed(), row.display_scale)}, ledger_scale ${row.ledger_scale})`,
    );
  }

  // Only `available` is spendable; compare with Decimal, never with JS numbers.
  const usdt = (await member.balances.list()).find((r) => r.asset === 'USDT')!;
  console.log(`can spend 100 USDT: ${toDecimal(usdt.available).gte('100')}`);

  // The envelope is there too; `balances` is a transitional duplicate of `data` the SDK never reads.
  const envelope = await member.balances.envelope();
  console.log(`envelope: ${envelope.data.length} rows, has_more ${envelope.has_more}, next_cursor ${envelope.next_cursor}`);

  // A blank member id is rejected before anything is sent (the service has no default member).
  try {
    client.member('   ');
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
    console.log(`blank member refused locally: ${err.argument}`);
  }

  // Suspended, unknown and foreign members all read as 404 member_not_found.
  await client.members.suspend(String(created.id));
  try {
    await member.balances.list();
  } catch (err) {
    if (!isApiError(err, 'member_not_found')) throw err;
    console.log(`after suspension: ${err.code} (HTTP ${err.status})`);
  }
  console.log('done');
} finally {
  await client.close();
}
