/**
 * The merchant's suite for app.ts: vitest, msw with the merchant's own handlers, the app on a
 * real loopback port, the SDK client with default settings. The unhandled-request policy is the
 * callback recipe of docs/testing.md (let loopback through to the app, refuse the rest), the
 * msw 2 form or the msw 3 form by the msw installed. `npm run test:merchant-app` runs it on
 * msw 2 under Node 20 and on msw 3 under Node 22 and 24, from the packed tarball.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from 'merchant-stablecoin';
import { createApp, type Ledger } from './app.js';

const BASE_URL = 'https://sandbox.merchant-api.test';
const WEBHOOK_SECRET = 'whsec_test_merchant_app';
const MSW_MAJOR = Number((JSON.parse(readFileSync('node_modules/msw/package.json', 'utf8')) as { version: string }).version.split('.')[0]);

/** Every request the SDK sent that msw saw, and every one the recipe refused. */
const seen: string[] = [];
const refused: string[] = [];
const path = (request: Request): string => `${request.method} ${new URL(request.url).pathname}`;

const server = setupServer(
  http.post(`${BASE_URL}/v1/connect/token`, () =>
    HttpResponse.json({ auth_token: 'tok_test', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
  ),
  http.post(`${BASE_URL}/v1/withdrawals`, async ({ request }) => {
    const body = (await request.json()) as { asset: string; amount: string; to_address: string };
    if (Number(body.amount) > 100)
      return HttpResponse.json(
        { type: 'invalid_request_error', code: 'insufficient_balance', message: 'Insufficient balance', request_id: 'req_2' },
        { status: 400 },
      );
    return HttpResponse.json(
      { id: 'wdr_test_1', status: 'locked', asset: body.asset, amount: body.amount, ledger_scale: 6, to_address: body.to_address },
      { status: 201 },
    );
  }),
);
server.events.on('request:start', ({ request }) => {
  if (new URL(request.url).origin === BASE_URL) seen.push(path(request));
});

/** The callback recipe of docs/testing.md for the msw at hand. */
function listen(): void {
  const refuse = (request: Request): never => {
    refused.push(path(request));
    throw new Error(`unhandled ${request.method} ${request.url}`);
  };
  // One suite for both majors: each takes the option the other does not know.
  const listenWith = server.listen as (options: object) => void;
  if (MSW_MAJOR >= 3) {
    // msw 3: onUnhandledFrame, the request inside the frame.
    listenWith({
      onUnhandledFrame({ frame }: { frame: { protocol: string; data: unknown } }) {
        if (frame.protocol !== 'http') return;
        const { request } = frame.data as { request: Request };
        if (new URL(request.url).hostname === '127.0.0.1') return; // the app under test
        refuse(request);
      },
    });
  } else {
    listenWith({
      onUnhandledRequest(request: Request, print: { error: () => void }) {
        if (new URL(request.url).hostname === '127.0.0.1') return; // the app under test
        print.error();
        refuse(request);
      },
    });
  }
}

const ledger: Ledger = { credited: [] };
let client: MerchantClient;
let app: Server;
let appUrl: string;

beforeAll(async () => {
  listen();
  // Default settings, as in production: no transport, no fetch named.
  client = new MerchantClient({
    baseUrl: BASE_URL,
    clientId: 'cli_test',
    apiKey: 'test-api-key',
    signingKey: 'test-signing-key',
    logLevel: 'off',
  });
  app = createApp(client, WEBHOOK_SECRET, ledger).listen(0, '127.0.0.1');
  await new Promise((resolve) => app.once('listening', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});
afterEach(() => {
  seen.length = 0;
  refused.length = 0;
});
afterAll(async () => {
  await new Promise((resolve) => app.close(resolve));
  await client.close();
  server.close();
});

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${appUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe(`the merchant app under msw ${MSW_MAJOR}`, () => {
  it('POST /payouts pays the customer out: the SDK signed the withdrawal msw answered', async () => {
    const res = await post('/payouts', { customer: 'cust-42', amount: '25.50', address: 'TQ7x1Vb9shopWallet' });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id: 'wdr_test_1', status: 'locked' });
    expect(seen.filter((s) => s === 'POST /v1/withdrawals')).toHaveLength(1);
    expect(refused).toEqual([]);
  });

  it('POST /payouts over the balance answers 422 from the typed insufficient_balance', async () => {
    const res = await post('/payouts', { customer: 'cust-42', amount: '250', address: 'TQ7x1Vb9shopWallet' });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'not enough funds' });
  });

  it('a call no handler answers: refused once, not sent, one attempt, never retried', async () => {
    const res = await fetch(`${appUrl}/customers/cust-42/balances`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'CallInterruptedError', sent: 'no', attempts: 1 });
    expect(refused).toEqual(['GET /v1/balances']);
    expect(seen).toEqual(['GET /v1/balances']);
  });

  it('POST /webhooks: a signed delivery is processed once, its duplicate acknowledged, a forged one refused', async () => {
    const raw = JSON.stringify({
      event_id: 'evt_1',
      event_type: 'card.topup.credited',
      created_at: '2026-11-29T10:00:00Z',
      merchant_id: 'mch_test',
      livemode: false,
      data: { object: 'card_topup', id: 'ctp_1', external_member_id: 'cust-42', status: 'credited', status_version: 1 },
    });
    const deliver = (signature: string): Promise<Response> =>
      fetch(`${appUrl}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'z-signature': signature,
          'z-event-id': 'evt_1',
          'z-event-type': 'card.topup.credited',
        },
        body: raw,
      });
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex');
    expect((await deliver('00'.repeat(32))).status).toBe(401);
    expect(ledger.credited).toEqual([]);
    expect((await deliver(signature)).status).toBe(200);
    expect((await deliver(signature)).status).toBe(200);
    expect(ledger.credited).toEqual(['ctp_1']);
  });
});
