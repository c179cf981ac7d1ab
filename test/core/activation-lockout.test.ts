/**
 * Issue 23, point 4: card activation, whose failures count against the customer (three lock the
 * card for 24 hours; "Network errors and upstream 5xx do not count"; a mismatch is a 500
 * `api_error` that counts), is never resent once an attempt may have executed. Counted at the
 * server: the SDK's own sandbox over HTTP, behind a hostile proxy that loses answers after the
 * sandbox processed the request.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  type ApiError,
  ConnectionError,
  MalformedResponseError,
  OutcomeUnknownError,
  TimeoutError,
  isApiError,
  type FetchFunction,
} from '../../src/index.js';
import type { Sandbox } from '../../src/testing/index.js';
import { startLossyProxy, type LossyProxy } from '../helpers/lossy-proxy.js';
import { servedWorlds, thrownBy } from '../testing/served.js';

const serve = servedWorlds();
const RIGHT = { expiry: '08/30', pin: '2468' } as const;
const WRONG = { expiry: '08/30', pin: '0000' } as const;

function seedPhysicalCard(sandbox: Sandbox): { member: string; card: string } {
  const m = sandbox.state.seedMember();
  const card = sandbox.state.seedCard({ member: m.id, form: 'physical', status: 'unactivated', inventory: 'shipped', ...RIGHT });
  return { member: m.id, card: card.id };
}

const activations = (sandbox: Sandbox) => sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/activate'));

/** A proxy that loses the answer of every activation, in front of a served sandbox. */
async function lossyWorld(loss: 'reset' | 'hold') {
  const world = await serve();
  const proxy: LossyProxy = await startLossyProxy(world.server.url, (method, path) =>
    method === 'POST' && path.endsWith('/activate') ? loss : undefined,
  );
  // A held answer never comes: the client's own timeout ends the attempt, however loaded the machine.
  const client = world.newClient({ baseUrl: proxy.url, timeoutMs: 2_000 });
  return { ...world, proxy, client, close: () => proxy.close() };
}

describe('one activation whose answer is lost after the service processed it', () => {
  for (const loss of ['reset', 'hold'] as const) {
    it(`${loss === 'reset' ? 'a reset after sending' : 'a client timeout'}: a wrong PIN costs one counted failure, never a lock, and is not resent`, async () => {
      const w = await lossyWorld(loss);
      try {
        const { member, card } = seedPhysicalCard(w.sandbox);
        const err = await thrownBy(() => w.client.member(member).cards.activate(card, WRONG));
        await w.proxy.waitForLost(1);

        // At the server: one request, one counted failure, no lock.
        expect(activations(w.sandbox)).toHaveLength(1);
        expect(w.proxy.lost[0]).toMatchObject({ status: 500 });
        expect(w.sandbox.state.card(card)).toMatchObject({ failures: 1, locked_until: null, status: 'unactivated' });

        // What the caller got: the call's state and what to check, with the lost attempt as cause.
        expect(err).toBeInstanceOf(OutcomeUnknownError);
        const e = err as OutcomeUnknownError;
        const key = activations(w.sandbox)[0]!.headers['x-idempotency-key'];
        expect(e.call).toEqual({ idempotencyKey: key, sent: 'maybe', status: undefined, requestId: undefined, attempts: 1 });
        expect(e.idempotencyKey).toBe(key);
        expect(e.cause).toBeInstanceOf(loss === 'reset' ? ConnectionError : TimeoutError);
        expect(e.message).toContain(`POST /v1/cards/${card}/activate may have been executed`);
        expect(e.message).toContain('not resent');
        expect(e.message).toContain('read the card (GET /v1/cards/{id}): `active` means it succeeded');
        expect(e.message).not.toContain('retry with idempotency key');

        // The read a caller makes next shows what a never-processed request would show too.
        expect(await w.client.member(member).cards.retrieve(card)).toMatchObject({ id: card, status: 'unactivated' });
      } finally {
        await w.close();
      }
    });
  }

  it('the right details, answer lost: not resent; the card reads active, and calling again is harmless', async () => {
    const w = await lossyWorld('reset');
    try {
      const { member, card } = seedPhysicalCard(w.sandbox);
      const err = await thrownBy(() => w.client.member(member).cards.activate(card, RIGHT));
      await w.proxy.waitForLost(1);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect(activations(w.sandbox)).toHaveLength(1);
      expect(await w.client.member(member).cards.retrieve(card)).toMatchObject({ status: 'active' });
      // Active: the spec answers 200 and counts nothing, with the same key (a replay) or a new one.
      const direct = w.newClient();
      const key = (err as OutcomeUnknownError).idempotencyKey!;
      const replay = await direct.member(member).cards.activate(card, RIGHT, { idempotencyKey: key }).withResponse();
      expect(replay).toMatchObject({ data: { id: card, status: 'active' }, response: { replayed: true } });
      expect(await direct.member(member).cards.activate(card, RIGHT)).toEqual({ id: card, status: 'active' });
      expect(w.sandbox.state.card(card)).toMatchObject({ failures: 0, locked_until: null });
    } finally {
      await w.close();
    }
  });

  it('an abort after the request was processed: AbortError, not resent, and the note says to check rather than retry', async () => {
    const w = await lossyWorld('hold');
    try {
      const { member, card } = seedPhysicalCard(w.sandbox);
      const controller = new AbortController();
      const call = thrownBy(() => w.client.member(member).cards.activate(card, WRONG, { signal: controller.signal }));
      await w.proxy.waitForLost(1);
      controller.abort();
      const err = await call;
      expect(err).toBeInstanceOf(AbortError);
      expect(err).toMatchObject({ call: { sent: 'maybe', attempts: 1 } });
      expect((err as AbortError).message).toContain('not resent: the service counts this call');
      expect((err as AbortError).message).not.toContain('retry with idempotency key');
      expect(activations(w.sandbox)).toHaveLength(1);
      expect(w.sandbox.state.card(card)).toMatchObject({ failures: 1, locked_until: null });
    } finally {
      await w.close();
    }
  });

  it('three user actions with lost answers cost three failures: each is one counted attempt, as if answered', async () => {
    const w = await lossyWorld('reset');
    try {
      const { member, card } = seedPhysicalCard(w.sandbox);
      for (let i = 1; i <= 2; i++) {
        expect(await thrownBy(() => w.client.member(member).cards.activate(card, WRONG))).toBeInstanceOf(OutcomeUnknownError);
        await w.proxy.waitForLost(i);
        expect(w.sandbox.state.card(card)).toMatchObject({ failures: i, locked_until: null });
      }
      expect(activations(w.sandbox)).toHaveLength(2);
    } finally {
      await w.close();
    }
  });
});

describe('answers the service gives for a processed activation are not retried either', () => {
  it('a 500 api_error (a mismatch): sent once, counted once, the error says what to check', async () => {
    const { sandbox, client } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    const err = await thrownBy(() => client.member(member).cards.activate(card, WRONG));
    expect(isApiError(err, 'api_error')).toBe(true);
    expect(err).toMatchObject({ retryClass: 'never', call: { sent: 'yes', attempts: 1, status: 500 } });
    expect((err as ApiError).message).toContain('not resent');
    expect((err as ApiError).message).toContain('`active` means it succeeded');
    expect(activations(sandbox)).toHaveLength(1);
    expect(sandbox.state.card(card)).toMatchObject({ failures: 1 });
  });

  it('a 409 idempotency_in_progress: not waited out and resent (the first may end in a failure the key does not store)', async () => {
    const { sandbox, client } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    sandbox.faults.inject({ method: 'POST', path: '/v1/cards/:id/activate' }, { kind: 'in_progress' });
    const err = await thrownBy(() => client.member(member).cards.activate(card, RIGHT));
    expect(isApiError(err, 'idempotency_in_progress')).toBe(true);
    expect(err).toMatchObject({ retryClass: 'never', call: { sent: 'yes', attempts: 1 } });
    expect((err as ApiError).message).toContain('not resent');
    expect(activations(sandbox)).toHaveLength(1);
    expect(sandbox.state.card(card)).toMatchObject({ status: 'unactivated', failures: 0 });
  });

  it("a proxy's HTML 502 page (not the service's word): not resent, outcome unknown, sent yes", async () => {
    const { sandbox, client } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    sandbox.faults.inject({ method: 'POST', path: '/v1/cards/:id/activate' }, { kind: 'html', status: 502 });
    const err = await thrownBy(() => client.member(member).cards.activate(card, RIGHT));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).cause).toBeInstanceOf(MalformedResponseError);
    expect(err).toMatchObject({ call: { sent: 'yes', status: 502, attempts: 1 } });
    expect(activations(sandbox)).toHaveLength(1);
  });

  it('an unknown code: not resent (it counts as api_error)', async () => {
    const { sandbox, client } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    sandbox.faults.inject({ method: 'POST', path: '/v1/cards/:id/activate' }, { kind: 'unknown_code', status: 500 });
    const err = await thrownBy(() => client.member(member).cards.activate(card, RIGHT));
    expect(err).toMatchObject({ code: 'brand_new_code', retryClass: 'never' });
    expect(activations(sandbox)).toHaveLength(1);
  });
});

describe('what the error says when nothing may have counted', () => {
  it('a business answer (state_invalid) and an abort before sending carry no lockout note', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const frozen = sandbox.state.seedCard({ member: m.id, form: 'physical', status: 'frozen', ...RIGHT });
    const refused = await thrownBy(() => client.member(m.id).cards.activate(frozen.id, RIGHT));
    expect(isApiError(refused, 'state_invalid')).toBe(true);
    expect((refused as ApiError).message).not.toContain('not resent');
    const { member, card } = seedPhysicalCard(sandbox);
    const aborted = await thrownBy(() => client.member(member).cards.activate(card, RIGHT, { signal: AbortSignal.abort() }));
    expect(aborted).toBeInstanceOf(AbortError);
    expect(aborted).toMatchObject({ call: { sent: 'no', attempts: 0 } });
    expect((aborted as AbortError).message).toContain('nothing reached the service: calling again is safe');
    expect(activations(sandbox)).toHaveLength(1);
  });
});

describe('what cannot count is still retried with the same key (spec: network errors and upstream 5xx do not count)', () => {
  for (const status of [502, 504] as const) {
    it(`a ${status} from the service: retried with the same key, activated, nothing counted`, async () => {
      const { sandbox, client } = await serve();
      const { member, card } = seedPhysicalCard(sandbox);
      sandbox.faults.inject({ method: 'POST', path: '/v1/cards/:id/activate' }, { kind: 'status', status, when: 'before' });
      expect(await client.member(member).cards.activate(card, RIGHT)).toEqual({ id: card, status: 'active' });
      const sent = activations(sandbox);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.headers['x-idempotency-key']).toBe(sent[0]!.headers['x-idempotency-key']);
      expect(sent[1]!.headers['x-nonce']).not.toBe(sent[0]!.headers['x-nonce']);
      expect(sandbox.state.card(card)).toMatchObject({ failures: 0, status: 'active' });
    });
  }

  it('a 429: waited and retried with the same key', async () => {
    const { sandbox, client } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    sandbox.faults.inject({ method: 'POST', path: '/v1/cards/:id/activate' }, { kind: 'rate_limited', retryAfter: 0, shape: 'flat' });
    expect(await client.member(member).cards.activate(card, RIGHT)).toEqual({ id: card, status: 'active' });
    expect(activations(sandbox)).toHaveLength(2);
  });

  it('a connection refused before anything was sent: retried with the same key', async () => {
    const { sandbox, server, newClient } = await serve();
    const { member, card } = seedPhysicalCard(sandbox);
    // A port nothing listens on: the first activation attempt is refused by a real socket.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    let refused = 0;
    const fetchFn: FetchFunction = (input, init) => {
      const url = String(input);
      if (url.endsWith('/activate') && refused++ === 0) return fetch(url.replace(server.url, `http://127.0.0.1:${port}`), init);
      return fetch(url, init);
    };
    const client = newClient({ fetch: fetchFn });
    const result = await client.member(member).cards.activate(card, RIGHT).withResponse();
    expect(result.data).toEqual({ id: card, status: 'active' });
    expect(refused).toBe(2);
    expect(result.response.attempts).toBe(2);
    expect(activations(sandbox)).toHaveLength(1);
    expect(activations(sandbox)[0]!.headers['x-idempotency-key']).toBe(result.response.idempotencyKey);
  });
});
