/**
 * A merchant's Express application, written from the guides alone: a payout route that calls the
 * SDK, a balance route, and the webhook route (`express.raw()` before `express.json()`, as
 * docs/webhooks.md says). Its tests (app.test.ts) run it with msw as a merchant's suite does.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { CallInterruptedError, isApiError, MerchantClient, MerchantSdkError } from 'merchant-stablecoin';
import { createWebhookHandler, type WebhookVerifier } from 'merchant-stablecoin/webhooks';

/** What the shop keeps of the events it processed, in order (the application's own store). */
export interface Ledger {
  readonly credited: string[];
}

/**
 * The spec does not publish the webhook signature procedure: a merchant implements the one the
 * service gives them. This app uses hex HMAC-SHA256 of the raw body, the sandbox's test scheme.
 */
function hmacVerifier(secret: string): WebhookVerifier {
  return (rawBody, headers) => {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    const given = Buffer.from(String(headers['z-signature'] ?? ''), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

/** What the route answers for a failed SDK call: the call's state, never a secret. */
function failure(err: unknown): { status: number; body: Record<string, unknown> } {
  if (isApiError(err, 'insufficient_balance')) return { status: 422, body: { error: 'not enough funds' } };
  if (err instanceof MerchantSdkError) {
    // Not sent: safe to try again later. Anything else may have executed: look before retrying.
    const retryable = err instanceof CallInterruptedError && err.call?.sent === 'no';
    return { status: retryable ? 503 : 502, body: { error: err.name, sent: err.call?.sent, attempts: err.call?.attempts } };
  }
  return { status: 500, body: { error: 'internal' } };
}

/** Builds the application around a client the caller configures (default settings in production). */
export function createApp(client: MerchantClient, webhookSecret: string, ledger: Ledger): express.Express {
  const app = express();
  const webhooks = createWebhookHandler({
    verify: hmacVerifier(webhookSecret),
    logLevel: 'error',
    async onEvent(event) {
      if (event.known && event.event_type === 'card.topup.credited') ledger.credited.push(event.data.id);
    },
  });
  // The raw bytes for the signature: registered before express.json().
  app.post('/webhooks', express.raw({ type: 'application/json' }), webhooks);
  app.use(express.json());

  app.post('/payouts', async (req, res) => {
    const { customer, amount, address } = req.body as { customer: string; amount: string; address: string };
    try {
      const order = await client.member(customer).withdrawals.create({ asset: 'USDT', amount, to_address: address });
      res.status(201).json({ id: order.id, status: order.status });
    } catch (err) {
      const { status, body } = failure(err);
      res.status(status).json(body);
    }
  });

  app.get('/customers/:id/balances', async (req, res) => {
    try {
      res.json(await client.member(req.params.id).balances.list());
    } catch (err) {
      const { status, body } = failure(err);
      res.status(status).json(body);
    }
  });
  return app;
}
