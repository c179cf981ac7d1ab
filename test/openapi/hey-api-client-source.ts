/**
 * The hand-written part of the @hey-api client (`hey-api-client.test.ts`), written next to the
 * generated folder `gen/` and compiled against it: the signature of every write (the document's
 * `x-signing` rule), the token on every call, and the flow. Everything else (paths, methods,
 * headers, bodies, the request and response schemas) comes from the generated code.
 */

/** What the flow reports back to the test. */
export interface FlowOutcome {
  /** Status of each success step. */
  steps: Record<string, number>;
  /** The error answers, read by `code`, with the replay header. */
  errors: Array<{ step: string; status: number; code: string | null; replay: string | null }>;
  /** Answers that failed a generated schema or lacked `X-Request-Id`. */
  invalid: string[];
  /** Success answers validated by the generated response schemas. */
  successes: number;
  /** Report ids of the two pages. */
  reportIds: string[][];
  /** True when the generated request schema refused a negative amount before anything was sent. */
  refusedBeforeSending: boolean;
}

export const CLIENT_SOURCE = String.raw`
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { client } from './gen/client.gen.js';
import * as sdk from './gen/sdk.gen.js';
import * as z from 'zod';
import * as zs from './gen/zod.gen.js';
import { zError, zRateLimitedError } from './gen/zod.gen.js';

export interface Credentials { clientId: string; apiKey: string; signingKey: string }

/** By hand: the x-signing rule on every write but the token exchange (never signed). */
async function sign(request: Request, signingKey: string): Promise<Request> {
  const url = new URL(request.url);
  if (request.method === 'GET' || request.method === 'HEAD' || url.pathname === '/v1/connect/token') return request;
  const body = new Uint8Array(await request.clone().arrayBuffer());
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const digest = createHash('sha256').update(body).digest('hex');
  const text = [request.method, url.pathname + url.search, timestamp, nonce, digest].join('\n');
  request.headers.set('x-timestamp', timestamp);
  request.headers.set('x-nonce', nonce);
  request.headers.set('x-signature', createHmac('sha256', signingKey).update(text).digest('base64'));
  return request;
}

type Part = 'body' | 'headers' | 'query' | 'path';

/**
 * By hand, a generator gap: the generated request validator reads header parameters from the
 * client's merged Headers object, where zod finds none, so any operation with a required header
 * fails before sending. The same generated schemas are applied to the options as given instead,
 * and the inline validator is switched off for that call (a refusal still throws before sending).
 */
function valid<O extends object>(parts: Partial<Record<Part, z.ZodType>>, options: O): O & { requestValidator: undefined } {
  const given = options as Partial<Record<Part, unknown>>;
  for (const [part, schema] of Object.entries(parts) as Array<[Part, z.ZodType]>) schema.parse(given[part]);
  return { ...options, requestValidator: undefined };
}

interface Answer { response?: Response; error?: unknown; data?: unknown }

export async function run(baseUrl: string, creds: Credentials, member: string, unconfigureAgreement: () => void) {
  let token = '';
  client.setConfig({ baseUrl });
  client.interceptors.request.use(async (request: Request) => {
    if (new URL(request.url).pathname !== '/v1/connect/token') request.headers.set('x-auth-token', 'Bearer ' + token);
    return sign(request, creds.signingKey);
  });
  const key = () => ({ 'x-idempotency-key': randomUUID() });
  const onBehalf = { 'x-on-behalf-of': member };
  const out = {
    steps: {} as Record<string, number>,
    errors: [] as Array<{ step: string; status: number; code: string | null; replay: string | null }>,
    invalid: [] as string[],
    successes: 0,
    reportIds: [] as string[][],
    refusedBeforeSending: false,
  };

  /** Every answer: X-Request-Id present; a 2xx passed the generated response schema; an error the generated error schema. */
  const check = (step: string, a: Answer, expectError: boolean): void => {
    if (!a.response) {
      out.invalid.push(step + ': no answer (' + String(a.error) + ')');
      return;
    }
    const response = a.response;
    const status = response.status;
    if (!response.headers.get('x-request-id')) out.invalid.push(step + ': no X-Request-Id');
    const replay = response.headers.get('x-idempotent-replay');
    if (status >= 200 && status < 300) {
      if (a.error !== undefined) out.invalid.push(step + ': ' + String(a.error));
      else out.successes++;
      if (expectError) out.errors.push({ step, status, code: null, replay });
      else out.steps[step] = status;
      return;
    }
    const parsed = zError.safeParse(a.error);
    const wrapped = zRateLimitedError.safeParse(a.error);
    if (!parsed.success && !wrapped.success) out.invalid.push(step + ': error body ' + JSON.stringify(a.error));
    const code = parsed.success ? parsed.data.code : wrapped.success ? wrapped.data.error.code : null;
    if (parsed.success && parsed.data.request_id !== response.headers.get('x-request-id')) out.invalid.push(step + ': request_id differs');
    out.errors.push({ step, status, code, replay });
  };

  const exchanged = await sdk.connectToken(valid({ headers: zs.zConnectTokenHeaders }, { headers: { 'x-client-id': creds.clientId, 'x-api-key': creds.apiKey } }));
  check('token', exchanged, false);
  if (!exchanged.data) throw new Error('token exchange failed: ' + JSON.stringify(exchanged.error));
  token = exchanged.data.auth_token;

  check('faucet', await sdk.sandboxFaucet(valid({ headers: zs.zSandboxFaucetHeaders, body: zs.zSandboxFaucetBody }, { headers: key(), body: { asset: 'USDT', amount: '1000' } })), false);
  check('member', await sdk.membersCreate(valid({ headers: zs.zMembersCreateHeaders, body: zs.zMembersCreateBody }, { headers: key(), body: { external_member_id: member } })), false);
  check('deposit', await sdk.depositsDeclare(valid({ headers: zs.zDepositsDeclareHeaders, body: zs.zDepositsDeclareBody }, { headers: { ...onBehalf, ...key() }, body: { asset: 'USDT', amount: '100' } })), false);
  const withdrawing = { headers: zs.zWithdrawalsCreateHeaders, body: zs.zWithdrawalsCreateBody };
  const withdrawal = await sdk.withdrawalsCreate(valid(withdrawing, {
    headers: { ...onBehalf, ...key() },
    body: { asset: 'USDT', amount: '25.5', to_address: 'TQ7x1Vb9' },
  }));
  check('withdrawal', withdrawal, false);

  // A business failure, then the same key again: the stored failure replayed.
  const failing = { headers: { ...onBehalf, ...key() }, body: { asset: 'USDT', amount: '1000', to_address: 'TQ7x1Vb9' } };
  check('insufficient', await sdk.withdrawalsCreate(valid(withdrawing, failing)), true);
  check('replayed', await sdk.withdrawalsCreate(valid(withdrawing, failing)), true);
  check('unknownMember', await sdk.balancesList(valid({ headers: zs.zBalancesListHeaders }, { headers: { 'x-on-behalf-of': 'nobody-' + randomUUID() } })), true);
  check('badCredentials', await sdk.connectToken(valid({ headers: zs.zConnectTokenHeaders }, { headers: { 'x-client-id': creds.clientId, 'x-api-key': 'wrong' } })), true);
  check('agreement', await sdk.remittancesAgreement({ query: { lang: 'en' } }), false);
  unconfigureAgreement();
  check('agreementMissing', await sdk.remittancesAgreement({ query: { lang: 'en' } }), true);

  check('balances', await sdk.balancesList(valid({ headers: zs.zBalancesListHeaders }, { headers: onBehalf })), false);
  const first = await sdk.reportsList({ query: { limit: 2 } });
  check('reportsFirst', first, false);
  const second = await sdk.reportsList({ query: { limit: 2, cursor: first.data?.next_cursor ?? undefined } });
  check('reportsSecond', second, false);
  out.reportIds = [first.data?.data.map((r) => r.id) ?? [], second.data?.data.map((r) => r.id) ?? []];

  // The generated request schema refuses what the spec rules out, before sending.
  try {
    await sdk.withdrawalsCreate(valid(withdrawing, { headers: { ...onBehalf, ...key() }, body: { asset: 'USDT', amount: '-5', to_address: 'T' } }));
  } catch (e) {
    out.refusedBeforeSending = e instanceof z.ZodError;
  }
  return out;
}
`;
