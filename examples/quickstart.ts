/**
 * Quickstart: what a merchant backend does on its first day, end to end.
 *
 * With no `MERCHANT_API_*` variables it starts the embedded sandbox simulator on a free loopback
 * port and runs against it (no credentials needed). With `MERCHANT_API_BASE_URL`,
 * `MERCHANT_API_CLIENT_ID`, `MERCHANT_API_KEY` and `MERCHANT_API_SIGNING_KEY` set, it runs the
 * same steps against that service (use sandbox credentials: it calls the faucet).
 *
 * Run: `npm run demo`
 */
import { randomUUID } from 'node:crypto';
import { balanceTotal, isApiError, MerchantClient, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function main(): Promise<void> {
  let client: MerchantClient;
  let stop = async (): Promise<void> => {};
  if (process.env['MERCHANT_API_BASE_URL']) {
    client = new MerchantClient();
    say(`Using the service at ${client.baseUrl}`);
  } else {
    const sandbox = createSandbox();
    sandbox.state.seedReports(45);
    const server = await sandbox.listen({ port: 0 });
    // An ordinary client over real sockets, exactly as in production, pointed at the simulator.
    client = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials });
    stop = () => server.close();
    say(`Sandbox simulator listening on ${server.url}`);
  }

  try {
    // 1. The first call exchanges a token (cached for 30 minutes, renewed before expiry).
    const assets = await client.assets.list();
    say(`1. Token exchanged; ${assets.data.length} assets in the catalogue`);

    // 2. Credit the merchant prepaid account from the sandbox faucet (idempotent by key).
    const credit = await client.sandbox.faucet({ asset: 'USDT', amount: '1000' });
    say(`2. Faucet credited ${credit.credited} ${credit.asset} to the prepaid account (journal ${credit.journal_id})`);

    // 3. Create a member and give them funds with a deposit declaration.
    const externalId = `demo-${randomUUID().slice(0, 8)}`;
    const created = await client.members.create({ external_member_id: externalId });
    if (!isLooseObject(created)) throw new Error(`member: not a JSON object (${JSON.stringify(created)})`);
    const member = client.member(externalId);
    await member.deposits.declare({ asset: 'USDT', amount: '250.00' });
    say(`3. Member ${externalId} created (${String(created.id)}) and credited 250.00 USDT`);

    // 4. Balances: eight buckets per asset; the total is their sum, shown at the ledger's scale.
    const show = async (): Promise<void> => {
      for (const row of await member.balances.list()) {
        const total = balanceTotal(row).toFixed(row.ledger_scale);
        say(`   ${row.asset}: available ${row.available}, withdrawing ${row.withdrawing}, total ${total}`);
      }
    };
    say('4. Balances:');
    await show();

    // 5. Debit a withdrawal: available -> withdrawing, under an idempotency key every retry reuses.
    const { data: order, response } = await member.withdrawals
      .create({ asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9demoAddress' })
      .withResponse();
    say(`5. Withdrawal ${order.id} is ${order.status} (key ${response.idempotencyKey}, request ${response.requestId})`);
    await show();

    // 6. After paying on-chain, confirm it: the withdrawing hold clears.
    const confirmed = await member.withdrawals.confirm(order.id);
    if (!isLooseObject(confirmed)) throw new Error(`confirmation: not a JSON object (${JSON.stringify(confirmed)})`);
    say(`6. Withdrawal confirmed: status ${String(confirmed.status)}`);
    await show();

    // 7. Walk every export report with for-await: the SDK follows the keyset cursors.
    let count = 0;
    const statuses = new Map<string, number>();
    for await (const report of client.reports.list({ limit: 20 })) {
      count++;
      statuses.set(report.status, (statuses.get(report.status) ?? 0) + 1);
    }
    say(`7. Walked ${count} reports: ${[...statuses].map(([s, n]) => `${n} ${s}`).join(', ')}`);

    // 8. Errors are branched on `code`, never on the message.
    try {
      await member.withdrawals.create({ asset: 'USDT', amount: '1000000', to_address: 'TQ7x1Vb9demoAddress' });
    } catch (err) {
      if (isApiError(err, 'insufficient_balance')) {
        say(`8. Refused as expected: ${err.code} (request ${err.requestId}); fund the member and retry with a new key`);
      } else {
        throw err;
      }
    }
    say('Done.');
  } finally {
    await client.close();
    await stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
