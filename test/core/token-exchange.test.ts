/**
 * The token exchange as a caller sees it (spec: Authentication > Stage 1): its answer is always
 * validated, and a token in hand is reused from memory whatever the token store keeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResponseValidationError, type MerchantClient, type TokenStore } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const read = () => client.request({ method: 'GET', path: '/v1/assets' });

describe('token exchange', () => {
  it('an answer without a token fails the call with ResponseValidationError, even with validateResponses off', async () => {
    server.onToken({ body: { token_type: 'Bearer', scopes: [] } });
    client = wireClient(server.url, { validateResponses: false });
    const err = await read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(server.tokenExchanges()).toBe(1);
    // Nothing is sent with a token the SDK could not read.
    expect(server.calls()).toHaveLength(0);
  });

  it('a token in hand is reused from memory, even with a store that keeps nothing', async () => {
    const forgetful: TokenStore = { get: () => undefined, set: () => undefined, delete: () => undefined };
    client = wireClient(server.url, { tokenStore: forgetful });
    await read();
    await read();
    await read();
    expect(server.tokenExchanges()).toBe(1);
    expect(new Set(server.calls().map((c) => c.headers['x-auth-token']))).toEqual(new Set(['Bearer tok_1']));
  });
});
