// The contenders: each makes the same signed, idempotent POST /v1/withdrawals (member-scoped) and
// returns the parsed withdrawal order. Every contender gets its own connection pool.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = dirname(BENCH_DIR);
// The undici the SDK itself depends on (root node_modules), so (a), (a') and (b) share one version.
const rootRequire = createRequire(join(ROOT, 'package.json'));
export const undici = rootRequire('undici');

export const CREDENTIALS = {
  clientId: 'cli_bench',
  apiKey: 'key_bench_0123456789abcdef',
  signingKey: 'sk_bench_0123456789abcdef0123456789abcdef',
};
export const MEMBER = 'ext-member-42';
export const WITHDRAWAL = { asset: 'USDT', amount: '25.50', to_address: 'TXYZ1234567890abcdefghijklmnopqrstu' };

export function importSdk() {
  return import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href);
}

/** Obtains a token by hand (the non-SDK contenders cache it for the whole run). */
export async function fetchToken(origin) {
  const res = await undici.request(`${origin}/v1/connect/token`, {
    method: 'POST',
    headers: { 'x-client-id': CREDENTIALS.clientId, 'x-api-key': CREDENTIALS.apiKey },
  });
  return (await res.body.json()).auth_token;
}

/** The spec's signature headers for one request (used by the peers, which cannot sign). */
function signatureHeaders(method, path, raw) {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const hash = createHash('sha256').update(raw).digest('hex');
  const sig = createHmac('sha256', CREDENTIALS.signingKey).update(`${method}\n${path}\n${ts}\n${nonce}\n${hash}`).digest('base64');
  return { 'x-timestamp': ts, 'x-nonce': nonce, 'x-signature': sig };
}

/** (a) The floor for a correct call: what a merchant would write instead of installing us. */
export function minimalClient(origin, token) {
  const dispatcher = new undici.Agent({ connections: 64 });
  const key = CREDENTIALS.signingKey;
  // ---- the ~15 lines -------------------------------------------------------------------------
  async function createWithdrawal(member, params) {
    const body = Buffer.from(JSON.stringify(params)); // serialised once: hashed, signed and sent
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomUUID();
    const hash = createHash('sha256').update(body).digest('hex');
    const signature = createHmac('sha256', key).update(`POST\n/v1/withdrawals\n${ts}\n${nonce}\n${hash}`).digest('base64');
    const res = await undici.request(`${origin}/v1/withdrawals`, {
      method: 'POST',
      body,
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'x-auth-token': `Bearer ${token}`,
        'x-on-behalf-of': member,
        'x-idempotency-key': randomUUID(),
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': signature,
      },
    });
    const json = JSON.parse(await res.body.text());
    if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode} ${json.code}`);
    return json;
  }
  // --------------------------------------------------------------------------------------------
  return { name: 'minimal', call: () => createWithdrawal(MEMBER, WITHDRAWAL), close: () => dispatcher.close() };
}

/** (a') Raw undici.request with pre-built headers and body: no per-call work at all. */
export function rawClient(origin, token) {
  const dispatcher = new undici.Agent({ connections: 64 });
  const body = Buffer.from(JSON.stringify(WITHDRAWAL));
  const headers = {
    'content-type': 'application/json',
    'x-auth-token': `Bearer ${token}`,
    'x-on-behalf-of': MEMBER,
    'x-idempotency-key': randomUUID(),
    ...signatureHeaders('POST', '/v1/withdrawals', body),
  };
  const url = `${origin}/v1/withdrawals`;
  return {
    name: 'raw',
    call: async () => {
      const res = await undici.request(url, { method: 'POST', body, headers, dispatcher });
      return res.body.text();
    },
    close: () => dispatcher.close(),
  };
}

/**
 * (b) This SDK, full pipeline, from dist/: token cached, signing, idempotency key, zod validation.
 * By default `@opentelemetry/api` is installed beside it (a devDependency) with no tracer or meter
 * registered: the SDK loads it and reports to its no-op tracer, the common production case.
 */
export function sdkClient(sdk, origin, opts = {}, name = 'sdk') {
  const client = new sdk.MerchantClient({ baseUrl: origin, ...CREDENTIALS, ...opts });
  return {
    name,
    client,
    call: () => client.member(MEMBER).withdrawals.create(WITHDRAWAL),
    close: () => client.close(),
  };
}

/** (d) Global fetch doing what (a) does. */
export function fetchClient(origin, token) {
  const key = CREDENTIALS.signingKey;
  return {
    name: 'fetch',
    call: async () => {
      const body = Buffer.from(JSON.stringify(WITHDRAWAL));
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const hash = createHash('sha256').update(body).digest('hex');
      const signature = createHmac('sha256', key).update(`POST\n/v1/withdrawals\n${ts}\n${nonce}\n${hash}`).digest('base64');
      const res = await fetch(`${origin}/v1/withdrawals`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-auth-token': `Bearer ${token}`,
          'x-on-behalf-of': MEMBER,
          'x-idempotency-key': randomUUID(),
          'x-timestamp': ts,
          'x-nonce': nonce,
          'x-signature': signature,
        },
      });
      const json = JSON.parse(await res.text());
      if (res.status >= 300) throw new Error(`HTTP ${res.status}`);
      return json;
    },
    close: async () => {},
  };
}

const benchRequire = createRequire(join(BENCH_DIR, 'package.json'));

/** (c) The official OpenAI Node SDK: `client.post()` with our headers (signed like the others). */
export async function openaiClient(origin, token) {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: token, baseURL: `${origin}/v1`, maxRetries: 0 });
  return {
    name: 'openai',
    call: () => {
      // OpenAI serialises the body itself with JSON.stringify: the same bytes as signed here.
      const raw = JSON.stringify(WITHDRAWAL);
      return client.post('/withdrawals', {
        body: WITHDRAWAL,
        headers: { 'x-on-behalf-of': MEMBER, 'x-idempotency-key': randomUUID(), ...signatureHeaders('POST', '/v1/withdrawals', raw) },
      });
    },
    close: async () => {},
  };
}

/**
 * (c) The official Stripe Node SDK: `rawRequest('POST', '/v2/withdrawals')`. stripe-node sends a
 * JSON body only for /v2 paths (v1 paths are form-encoded), so the server answers /v2/withdrawals
 * with the same order. Default node:http keep-alive agent, no retries, no telemetry header.
 */
export function stripeClient(origin, token) {
  const Stripe = benchRequire('stripe');
  const { hostname, port } = new URL(origin);
  const stripe = new Stripe(token, { host: hostname, port: Number(port), protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  return {
    name: 'stripe',
    call: async () => {
      const raw = JSON.stringify(WITHDRAWAL);
      const res = await stripe.rawRequest('POST', '/v2/withdrawals', WITHDRAWAL, {
        additionalHeaders: {
          'x-on-behalf-of': MEMBER,
          'x-idempotency-key': randomUUID(),
          ...signatureHeaders('POST', '/v2/withdrawals', raw),
        },
      });
      return res;
    },
    close: async () => {},
  };
}
