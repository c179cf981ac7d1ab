/**
 * Identity verification (`client.member(id).kyc`): submit an L1 application, poll the status,
 * see the result arrive (the simulator plays the reviewer), add a card-product snapshot, bind a
 * quick KYC profile (a one-time fee from the merchant prepayment) and reuse it for free.
 *
 *   npx tsx examples/kyc.ts
 */
import { isApiError, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
sandbox.state.seedMember({ external_member_id: 'carol' });
const client = sandbox.client();
const carol = client.member('carol');

try {
  // 1. The first L1 submission carries the complete profile. It emits no webhook; poll `status()`.
  const application = await carol.kyc.submitApplication({ profile: { first_name: 'Carol', last_name: 'Tan', nationality: 'SG' } });
  console.log(`L1 application ${application.id}: ${application.status} (level ${application.level})`);

  // While it is pending, a submission for a card product is refused.
  try {
    await carol.kyc.submitApplication({ card_product_id: 'cpd_sbx_virtual_usd', profile: {} });
  } catch (err) {
    if (!isApiError(err, 'state_invalid')) throw err;
    console.log(`product snapshot while L1 is pending: ${err.code}`);
  }

  // 2. The reviewer approves (the simulator's stand-in; in production, kyc.result.updated arrives).
  sandbox.state.setKycResult('carol', 'approved');
  const status = await carol.kyc.status();
  if (!isLooseObject(status)) throw new Error(`KYC status: not a JSON object (${JSON.stringify(status)})`);
  console.log(`status: level ${String(status['level'])}, L1 ${String(status['l1_status'])}`);

  // 3. After L1 approval, a product snapshot needs no profile (`{}`).
  const snapshot = await carol.kyc.submitApplication({ card_product_id: 'cpd_sbx_virtual_usd', profile: {} });
  console.log(`product snapshot ${snapshot.id}: ${snapshot.status} for ${snapshot.card_product_id}`);

  // 4. Quick KYC: a new allocation costs a one-time fee (default 10 USDT) from the prepayment.
  await client.sandbox.faucet({ asset: 'USDT', amount: '100' });
  const bound = await carol.kyc.quickBind({ email: 'carol+cards@example.test', country: 'SG' });
  console.log(
    `quick KYC bound: ${bound.binding.id} (${bound.binding.identity_issue_country}), reused=${bound.reused}, ${bound.remaining} bindings left`,
  );
  const reused = await carol.kyc.quickBind({ country: 'SG' });
  console.log(`same country again: reused=${reused.reused}, binding ${reused.binding.id === bound.binding.id ? 'unchanged' : 'new'}`);
  const prepaid = sandbox.state.merchant.prepaid['USDT'];
  console.log(`merchant prepaid USDT after one fee: ${prepaid?.available}`);

  // 5. A hosted verification session for the end user (shape not shown by the spec: loose).
  const session = await carol.kyc.createSession({ level: 2 });
  if (!isLooseObject(session)) throw new Error(`KYC session: not a JSON object (${JSON.stringify(session)})`);
  console.log(`L2 session ${String(session.id)} at ${String(session['url'])}`);
  console.log('done');
} finally {
  await client.close();
}
