/**
 * `http://` to a host other than this machine's loopback is refused unless the caller opts in
 * (`allowInsecureHttp: true`): over plain HTTP the api key, the tokens and the signatures travel
 * readable on the way. Over a real loopback socket reached under another name (a dispatcher
 * whose lookup answers 127.0.0.1 for `sandbox.merchant.test`), as a simulator on a private
 * network would be.
 */
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { API_KEY, CLIENT_ID, SIGNING_KEY, startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let agent: Agent;
beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
  // Every name resolves to the wire server's loopback address.
  agent = new Agent({ connect: { lookup: (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]) } });
});
afterEach(async () => {
  await agent.close();
  await server.close();
});

const named = (): string => `http://sandbox.merchant.test:${new URL(server.url).port}`;

describe('plain http', () => {
  it('to another host is refused before anything is sent, naming the option; the api key never leaves', () => {
    let err: unknown;
    try {
      new MerchantClient({ baseUrl: named(), clientId: CLIENT_ID, apiKey: API_KEY, signingKey: SIGNING_KEY, dispatcher: agent });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('baseUrl');
    expect((err as Error).message).toBe(
      'baseUrl: uses http:// to a host other than this machine: the api key and tokens would travel in plain text. Use https, or pass allowInsecureHttp: true for a simulator on a network you trust.',
    );
    expect((err as Error).message).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(0);
  });

  it('to another host goes through when the caller opts in with allowInsecureHttp: true', async () => {
    const client = new MerchantClient({
      baseUrl: named(),
      clientId: CLIENT_ID,
      apiKey: API_KEY,
      signingKey: SIGNING_KEY,
      dispatcher: agent,
      allowInsecureHttp: true,
    });
    await client.request({ method: 'GET', path: '/v1/assets' });
    await client.close();
    expect(server.requests.map((r) => `${r.method} ${r.url} ${r.headers['host']}`)).toEqual([
      `POST /v1/connect/token sandbox.merchant.test:${new URL(server.url).port}`,
      `GET /v1/assets sandbox.merchant.test:${new URL(server.url).port}`,
    ]);
  });

  it('to the loopback (127.0.0.0/8, localhost, [::1]) needs no option', async () => {
    const port = new URL(server.url).port;
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]']) {
      const client = wireClient(`http://${host}:${port}`, { dispatcher: agent });
      await client.close();
    }
    const client = wireClient(server.url);
    await client.request({ method: 'GET', path: '/v1/assets' });
    await client.close();
    expect(server.calls()).toHaveLength(1);
    // Look-alikes are other hosts.
    for (const host of ['127.0.0.1.example', 'localhost.example', '128.0.0.1']) {
      expect(() => wireClient(`http://${host}:${port}`)).toThrow(InvalidArgumentError);
    }
  });
});
