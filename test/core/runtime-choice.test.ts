/**
 * What the SDK picks by itself for the runtime it runs on, observed on the wire: the signer
 * (node:crypto, or Web Crypto where a runtime has no node:crypto) and the transport (undici on
 * Node, fetch where undici cannot be loaded, fetch only in the build for other runtimes).
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, MemoryTokenStore, MerchantClient } from '../../src/index.js';
import { createTransport as webTransport } from '../../src/core/platform/web.js';
import { FetchTransport } from '../../src/core/transport/fetch.js';
import { UndiciTransport } from '../../src/core/transport/undici.js';
import { wireClient } from '../helpers/client.js';
import { CLIENT_ID, startWireServer, type WireServer } from '../helpers/wire-server.js';

const ORDER = { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '25.50', ledger_scale: 6, to_address: 'TQ7x1Vb9' };
const WITHDRAWAL = { asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9' } as const;

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await server.close();
});

function attempt(url: URL): Parameters<FetchTransport['send']>[0] {
  return {
    method: 'GET',
    origin: url.origin,
    path: '/v1/assets',
    headers: {},
    body: undefined,
    signal: undefined,
    timeoutMs: 10_000,
    maxResponseBytes: 1 << 20,
  };
}

describe('signing where the runtime has no node:crypto (workerd, edge)', () => {
  it('signs every write with Web Crypto: the server verifies the signature and the token store key is the same hash', async () => {
    const real = process.getBuiltinModule.bind(process);
    vi.spyOn(process, 'getBuiltinModule').mockImplementation((id: string) => (id === 'node:crypto' ? undefined : real(id)));
    const tokenStore = new MemoryTokenStore();
    const setKey = vi.spyOn(tokenStore, 'set');
    const client = wireClient(server.url, { tokenStore });
    try {
      const order = await client.member('m').withdrawals.create(WITHDRAWAL);
      expect(order.id).toBe('wdr_1');
    } finally {
      await client.close();
    }
    const [call] = server.calls();
    expect(call?.signatureValid).toBe(true);
    const expected = createHash('sha256')
      .update(`${new URL(server.url).origin}\n${CLIENT_ID}`)
      .digest('hex')
      .slice(0, 32);
    expect(setKey.mock.calls[0]?.[0]).toBe(`merchant-stablecoin:token:${expected}`);
  });
});

describe('the Node transport', () => {
  it('sends through the fallback (fetch) when undici cannot be loaded', async () => {
    server.on('GET', '/v1/assets', { body: { data: [] } });
    const transport = new UndiciTransport(
      undefined,
      () => new FetchTransport(),
      () => Promise.resolve(undefined),
    );
    const res = await transport.send(attempt(new URL(server.url)));
    await transport.close();
    expect(res.status).toBe(200);
    // fetch offers compressed answers; the undici transport asks for identity.
    expect(server.requests[0]?.headers['accept-encoding']).not.toBe('identity');
  });

  it('fails the attempt, naming undici, when undici was asked for by name and cannot be loaded', async () => {
    const transport = new UndiciTransport(undefined, undefined, () => Promise.resolve(undefined));
    await expect(transport.send(attempt(new URL(server.url)))).rejects.toThrow(/undici 7 could not be loaded/);
    await transport.close();
    expect(server.requests).toHaveLength(0);
  });

  it('is undici by default: the request asks for identity encoding', async () => {
    const client = wireClient(server.url);
    try {
      await client.member('m').withdrawals.create(WITHDRAWAL);
    } finally {
      await client.close();
    }
    expect(server.calls()[0]?.headers['accept-encoding']).toBe('identity');
  });

  it('closes twice without error, before and after a call, with either transport', async () => {
    for (const transport of [undefined, 'fetch'] as const) {
      const unused = wireClient(server.url, { transport });
      await unused.close();
      await unused.close();
      const used = wireClient(server.url, { transport });
      await used.member('m').withdrawals.create(WITHDRAWAL);
      await used.close();
      await expect(used.close()).resolves.toBeUndefined();
      await expect(used.member('m').withdrawals.create(WITHDRAWAL)).rejects.toThrow();
    }
    expect(server.calls()).toHaveLength(2);
  });
});

describe('the build for Bun, Deno, workerd and edge runtimes', () => {
  it('uses fetch, and refuses undici with a reason', () => {
    expect(webTransport({})).toBeInstanceOf(FetchTransport);
    expect(() => webTransport({ transport: 'undici' })).toThrow(InvalidArgumentError);
    expect(() => webTransport({ dispatcher: { dispatch: () => true, close: async () => undefined } })).toThrow(/runs on Node only/);
  });
});

describe('what the client reads of the runtime', () => {
  it('names the runtime in the user agent: Deno and Bun before the Node version they also report, workerd by its navigator', async () => {
    const agents: string[] = [];
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /^merchant-stablecoin\/[\d.]+ node\/\d+\.\d+\.\d+$/],
      [{ Deno: { version: { deno: '2.9.6' } } }, / deno\/2\.9\.6$/],
      [{ Bun: { version: '1.4.5' } }, / bun\/1\.4\.5$/],
    ];
    for (const [globals, expected] of cases) {
      for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value);
      const client = wireClient(server.url);
      await client.member('m').withdrawals.create(WITHDRAWAL);
      await client.close();
      vi.unstubAllGlobals();
      const agent = server.calls().at(-1)?.headers['user-agent'] ?? '';
      expect(agent).toMatch(expected);
      agents.push(agent);
    }
    expect(new Set(agents).size).toBe(3);
  });

  it('works where reading the environment throws (Deno without --allow-env): settings come from the options', async () => {
    vi.stubGlobal('process', {
      ...process,
      get env(): never {
        throw new Error('Requires env access, run again with the --allow-env flag');
      },
    });
    const client = wireClient(server.url);
    try {
      const order = await client.member('m').withdrawals.create(WITHDRAWAL);
      expect(order.id).toBe('wdr_1');
    } finally {
      await client.close();
    }
    // A setting left to the environment is missing, named as such: not the runtime's refusal.
    expect(() => new MerchantClient({ baseUrl: server.url })).toThrow(InvalidArgumentError);
  });
});
