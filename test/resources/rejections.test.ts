/**
 * Every method that returns a promise reports every failure through it: bad input is a rejected
 * call (the same typed error, nothing sent), never a synchronous throw that `.catch()` and
 * `Promise.allSettled` miss. Walked over the endpoint table (one sample call per endpoint, with a
 * typo in its options) and over every method of every namespace (called with arguments of the
 * wrong type).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { MEMBER, SAMPLES } from './samples.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** Calls `make` and returns what it rejected with; a synchronous throw or a success fails the test. */
async function rejection(make: () => PromiseLike<unknown>): Promise<unknown> {
  let returned: PromiseLike<unknown>;
  try {
    returned = make();
  } catch (err) {
    throw new Error(`threw synchronously instead of rejecting: ${String(err)}`, { cause: err });
  }
  expect(typeof returned.then).toBe('function');
  const settled = await Promise.allSettled([returned]);
  expect(settled[0].status).toBe('rejected');
  return (settled[0] as PromiseRejectedResult).reason;
}

describe('per-call options are checked before anything is sent, on every endpoint', () => {
  const ids = ENDPOINTS.map((e) => e.id).filter((id) => SAMPLES[id] !== undefined);

  it('the walk covers every endpoint but the token exchange', () => {
    expect(ENDPOINTS.filter((e) => SAMPLES[e.id] === undefined).map((e) => e.id)).toEqual(['connect.token']);
  });

  it.each(ids)('%s: a typo (idempotencyKay) is refused, naming the option', async (id) => {
    const err = await rejection(() => SAMPLES[id]!.call(client, { idempotencyKay: 'x' } as never));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('options.idempotencyKay');
    expect(server.calls()).toEqual([]);
    expect(server.tokenExchanges()).toBe(0);
  });

  it.each([
    [{ timeoutMs: -5 }, 'options.timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'options.timeoutMs'],
    [{ maxRetries: 1.5 }, 'options.maxRetries'],
    [{ maxRetries: -1 }, 'options.maxRetries'],
    [{ signal: {} }, 'options.signal'],
    [{ idempotencyKey: 42 }, 'idempotencyKey'],
  ])('an invalid value (%o) is refused as %s', async (options, argument) => {
    const err = await rejection(() =>
      client.member(MEMBER).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, options as never),
    );
    expect(err).toMatchObject({ name: 'InvalidArgumentError', argument });
    expect(server.calls()).toEqual([]);
  });

  it('keys left undefined by a spread are fine', async () => {
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await expect(client.assets.list(undefined, { timeoutMs: undefined, signal: undefined })).resolves.toBeDefined();
  });
});

/** Every namespace object reachable from the client, with a name. */
function namespaces(c: MerchantClient): Array<[string, object]> {
  const member = c.member(MEMBER) as unknown as Record<string, object>;
  const root = c as unknown as Record<string, object>;
  const top = ['merchant', 'reports', 'remittances', 'assets', 'members', 'sandbox', 'withdrawals'].map(
    (n) => [n, root[n]!] as [string, object],
  );
  const merchant = root['merchant'] as Record<string, unknown>;
  const nested = Object.keys(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(merchant) as object))
    .filter((k) => k !== 'constructor' && typeof merchant[k] === 'object' && merchant[k] !== null)
    .map((k) => [`merchant.${k}`, merchant[k] as object] as [string, object]);
  const views = Object.keys(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(member) as object))
    .filter((k) => k !== 'constructor' && typeof member[k] === 'object')
    .map((k) => [`member.${k}`, member[k]!] as [string, object]);
  return [...top, ...nested, ...views];
}

/** The methods of a namespace object (its class's own prototype methods). */
function methods(target: object): string[] {
  const proto = Object.getPrototypeOf(target) as object;
  return Object.getOwnPropertyNames(proto).filter(
    (k) => k !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, k)!.value === 'function',
  );
}

describe('bad input to any namespace method is a rejection, nothing sent', () => {
  it('reaches every endpoint of the table through the walked methods', () => {
    const walked = namespaces(client).flatMap(([ns, target]) => methods(target).map((m) => `${ns}.${m}`));
    expect(walked.length).toBeGreaterThanOrEqual(ENDPOINTS.length - 5);
  });

  it('every method, called with arguments of the wrong type, rejects with a typed error', async () => {
    const seen: string[] = [];
    for (const [ns, target] of namespaces(client)) {
      for (const name of methods(target)) {
        const method = (target as Record<string, (...args: unknown[]) => PromiseLike<unknown>>)[name]!;
        const err = await rejection(() => method.call(target, 12.5, 12.5, 12.5, 12.5));
        expect(err, `${ns}.${name}`).toBeInstanceOf(InvalidArgumentError);
        seen.push(`${ns}.${name}`);
      }
    }
    expect(server.calls()).toEqual([]);
    expect(seen.length).toBeGreaterThan(40);
  });

  it('Promise.allSettled sees a bad amount among good orders; the good ones are sent', async () => {
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', to_address: 'T', ledger_scale: 6 },
    });
    const orders = [{ amount: '1' }, { amount: 12.5 }, { amount: '1' }];
    const results = await Promise.allSettled(
      orders.map((o) => client.member(MEMBER).withdrawals.create({ asset: 'USDT', to_address: 'T', ...o } as never)),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'InvalidArgumentError', argument: 'amount' });
    expect(server.calls()).toHaveLength(2);
  });

  it('a list with bad input rejects when iterated too', async () => {
    const list = client.assets.list(12.5 as never);
    await expect(list.collect(10)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(list.withResponse()).rejects.toBeInstanceOf(InvalidArgumentError);
    const iterate = async (): Promise<void> => {
      for await (const item of list) void item;
    };
    await expect(iterate()).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('client.request with a dot segment rejects; client.member (a synchronous factory) throws', async () => {
    await expect(rejection(() => client.request({ method: 'GET', path: '/v1/../admin' }))).resolves.toBeInstanceOf(InvalidArgumentError);
    expect(() => client.member(' ')).toThrow(InvalidArgumentError);
    expect(server.calls()).toEqual([]);
  });
});
