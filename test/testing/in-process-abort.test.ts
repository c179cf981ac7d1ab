/**
 * The in-process fetch (`sandbox.fetch`, `sandbox.client()`) honours the abort signal as `fetch`
 * does, so a client timeout is simulated without a socket: a `hang` fault holds the request, the
 * client's `timeoutMs` runs out, and the call fails with its key while the simulator may still
 * execute the request once released (like a real server after a client gave up).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, type MerchantClient, TimeoutError } from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';

const clients: MerchantClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const order = { asset: 'USDT', amount: '10', to_address: 'T-abort' };

describe('sandbox.client() in-process, against a stalled route', () => {
  it('a client timeout fails the call with its key; released, the request runs once and the same key replays it', async () => {
    const sb = createSandbox();
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const hang = sb.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'hang' });
    const client = sb.client({ timeoutMs: 50, maxRetries: 0 });
    clients.push(client);

    const err = await client
      .member(m.id)
      .withdrawals.create(order)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    const key = (err as TimeoutError).idempotencyKey;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(hang.hits).toBe(1);
    expect(sb.state.countEffects('withdrawal.create')).toBe(0);

    // The simulator still holds the request; released, it executes, as a server would.
    await hang.release();
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    const again = await client.member(m.id).withdrawals.create(order, { idempotencyKey: key }).withResponse();
    expect(again.response.replayed).toBe(true);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });

  it('with retries left, the timed-out attempt is retried with the same key and meets 409 in progress until released', async () => {
    const sb = createSandbox();
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const hang = sb.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'hang' });
    const client = sb.client({ timeoutMs: 50, maxRetries: 1 });
    clients.push(client);
    const err = await client
      .member(m.id)
      .withdrawals.create(order)
      .catch((e: unknown) => e);
    const attempts = sb.requests.filter((r) => r.path === '/v1/withdrawals');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.headers['x-idempotency-key']).toBe(attempts[0]!.headers['x-idempotency-key']);
    expect(attempts[1]!.code).toBe('idempotency_in_progress');
    expect((err as { idempotencyKey?: string }).idempotencyKey).toBe(attempts[0]!.headers['x-idempotency-key']);
    await hang.release();
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it("a caller's AbortSignal ends the call at once, while the route is held", async () => {
    const sb = createSandbox();
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const hang = sb.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'hang' });
    const client = sb.client({ maxRetries: 0 });
    clients.push(client);
    const controller = new AbortController();
    const call = client
      .member(m.id)
      .withdrawals.create(order, { signal: controller.signal })
      .catch((e: unknown) => e);
    await hang.waitForHits(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortError);
    await hang.release();
  });
});

describe('sandbox.fetch', () => {
  it('rejects with the signal’s reason when aborted while held, and sends nothing with a signal aborted before', async () => {
    const sb = createSandbox();
    const hang = sb.faults.inject({ method: 'GET', path: '/v1/assets' }, { kind: 'hang' });
    const controller = new AbortController();
    const pending = sb.fetch(`${sb.baseUrl}/v1/assets`, { method: 'GET', signal: controller.signal }).catch((e: unknown) => e);
    await hang.waitForHits(1);
    const reason = new Error('gave up');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    await hang.release();

    const before = sb.requests.length;
    const aborted = AbortSignal.abort();
    const refused = await sb.fetch(`${sb.baseUrl}/v1/assets`, { method: 'GET', signal: aborted }).catch((e: unknown) => e);
    expect((refused as DOMException).name).toBe('AbortError');
    expect(sb.requests).toHaveLength(before);

    // Without a signal, or with one never aborted, the answer comes as before.
    const ok = await sb.fetch(`${sb.baseUrl}/v1/assets`, { method: 'GET', signal: new AbortController().signal });
    expect(ok.status).toBe(401);
  });
});
