/**
 * Every failure of a write reaches the caller as the SDK's typed error with the call's key and
 * state, on every Node line: Node 22 and 24 give errors an own `stack` accessor that reads
 * nothing on a copy, and the error of a step shared by several calls (a token renewal) is copied
 * once per call. `.ci/run` runs this suite under Node 20, 22 and 24.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  MerchantSdkError,
  TimeoutError,
  isApiError,
  type MerchantClient,
  type MerchantClientOptions,
} from '../../src/index.js';
import { withCallState, type CallState } from '../../src/core/errors/call-state.js';
import { failure, wireClient } from '../helpers/client.js';
import { startStalledServer, startUntrustedTlsServer, type LoopbackServer } from '../helpers/tls-servers.js';
import { apiError, idempotencyKeysOn, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: WireServer;
const clients: MerchantClient[] = [];
const others: LoopbackServer[] = [];
function client(url: string, options: Partial<MerchantClientOptions> = {}): MerchantClient {
  const c = wireClient(url, options);
  clients.push(c);
  return c;
}

beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(others.splice(0).map((s) => s.close()));
  await server.close();
});

/** What every such error must be: the SDK's class, the key, the state, a readable stack, nothing thrown by the SDK itself. */
function expectTypedWithKey(err: unknown, sent: CallState['sent']): MerchantSdkError {
  expect(err).toBeInstanceOf(MerchantSdkError);
  expect(err).not.toBeInstanceOf(TypeError);
  const e = err as MerchantSdkError;
  expect(e.idempotencyKey).toMatch(UUID);
  expect(e.call).toMatchObject({ idempotencyKey: e.idempotencyKey, sent });
  // The stack names the class and says what the message says (the note included).
  expect(typeof e.stack).toBe('string');
  expect(e.stack!.startsWith(`${e.name}: ${e.message}`)).toBe(true);
  expect(inspect(e)).toContain(e.message);
  expect(JSON.parse(JSON.stringify(e))).toMatchObject({ idempotencyKey: e.idempotencyKey });
  return e;
}

describe('a failed step after or before a write reaches the caller typed, on this Node', () => {
  it('a withdrawal answered 504 whose token renewal then fails: the renewal error with the key, "may have executed"', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(504, 'upstream_timeout'), apiError(401, 'invalid_token')]);
    server.onToken((_req, n) =>
      n === 0
        ? { body: { auth_token: 'tok_1', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } }
        : apiError(401, 'invalid_credentials'),
    );
    const err = await failure(client(server.url).member('m').withdrawals.create(WITHDRAWAL));
    const e = expectTypedWithKey(err, 'yes');
    expect(isApiError(e, 'invalid_credentials')).toBe(true);
    expect(e).toBeInstanceOf(ApiError);
    const keys = idempotencyKeysOn(server, '/v1/withdrawals');
    expect(keys).toEqual([e.idempotencyKey, e.idempotencyKey]);
    expect(e.message).toContain(`(during POST /v1/withdrawals: the call may have executed: retry with idempotency key ${keys[0]})`);
  });

  it('a refused connection during the token exchange: ConnectionError, the key, nothing sent, the socket code', async () => {
    const closed = await startWireServer();
    await closed.close();
    for (const transport of ['undici', 'fetch'] as const) {
      const err = await failure(client(closed.url, { transport, maxRetries: 0 }).member('m').withdrawals.create(WITHDRAWAL));
      const e = expectTypedWithKey(err, 'no');
      expect(e).toBeInstanceOf(ConnectionError);
      expect(e.message).toContain('(during POST /v1/withdrawals: nothing reached the service: calling again is safe)');
      expect((e.cause as { code?: string }).code).toBe('ECONNREFUSED');
    }
  });

  it('a TLS failure during the token exchange (a certificate nobody trusts): ConnectionError, the key, nothing sent, the TLS cause', async () => {
    const tls = await startUntrustedTlsServer();
    others.push(tls);
    for (const transport of ['undici', 'fetch'] as const) {
      const err = await failure(client(tls.url, { transport, maxRetries: 0 }).member('m').withdrawals.create(WITHDRAWAL));
      const e = expectTypedWithKey(err, 'no');
      expect(e).toBeInstanceOf(ConnectionError);
      expect(e).not.toBeInstanceOf(TimeoutError);
      // The certificate is the reason, on both transports (fetch's own "fetch failed" says nothing).
      expect(e.message).toMatch(/self[- ]signed certificate/);
      expect((e.cause as { code?: string }).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(e.message).toContain('nothing reached the service');
    }
  });

  it('a connect that never completes (a stalled TLS handshake): TimeoutError, the key, nothing sent', async () => {
    const stalled = await startStalledServer();
    others.push(stalled);
    // A stall never answers: the timeout decides, however slow the machine.
    const err = await failure(client(stalled.url, { timeoutMs: 200, maxRetries: 0 }).member('m').withdrawals.create(WITHDRAWAL));
    const e = expectTypedWithKey(err, 'no');
    expect(e).toBeInstanceOf(TimeoutError);
    expect(stalled.connections).toBeGreaterThan(0);
  });
});

describe('withCallState copies an error whatever shape the runtime gave it', () => {
  /** An error whose `stack` is an own accessor that reads only the object it was made for (Node 22 and 24). */
  function boundStackError(message: string): ApiError {
    const err = new ApiError({
      status: 401,
      code: 'invalid_credentials',
      type: 'authentication_error',
      message,
      requestId: 'req_1',
      headers: {},
      idempotencyKey: undefined,
      body: {},
      attempts: 1,
    });
    const stacks = new WeakMap<object, string>([[err, err.stack!]]);
    Object.defineProperty(err, 'stack', {
      get(this: object) {
        return stacks.get(this);
      },
      set(this: object, v: string) {
        stacks.set(this, v);
      },
      enumerable: false,
      configurable: true,
    });
    return err;
  }
  const state = (key: string): CallState => ({ idempotencyKey: key, sent: 'yes', status: 401, requestId: 'req_1', attempts: 2 });

  it('a copy of a copy keeps the class, the message with each note, the stack, the cause and the state', () => {
    const original = boundStackError('bad credentials');
    // The token exchange's own call stamps its state without a note; each waiting call stamps its own, with one.
    const once = withCallState(original, state('k-1'));
    const twice = withCallState(once, state('k-2'), 'during POST /v1/withdrawals');
    const thrice = withCallState(twice, state('k-3'), 'again');
    for (const [copy, key] of [
      [once, 'k-1'],
      [twice, 'k-2'],
      [thrice, 'k-3'],
    ] as const) {
      expect(copy).toBeInstanceOf(ApiError);
      expect(copy.code).toBe('invalid_credentials');
      expect(copy.call?.idempotencyKey).toBe(key);
      expect(copy.idempotencyKey).toBe(key);
      expect(copy.attempts).toBe(2);
      expect(typeof copy.stack).toBe('string');
      expect(copy.stack!.startsWith(`ApiError: ${copy.message}`)).toBe(true);
    }
    expect(once.message).toBe('invalid_credentials (HTTP 401): bad credentials [request_id req_1]');
    // The copied stack is as hidden as the original's: not in Object.keys, JSON or a log of the fields.
    for (const copy of [once, twice, thrice]) expect(Object.prototype.propertyIsEnumerable.call(copy, 'stack')).toBe(false);
    expect(thrice.message).toBe('invalid_credentials (HTTP 401): bad credentials [request_id req_1] (during POST /v1/withdrawals) (again)');
    // The original is untouched: every caller of a shared step reads its own state.
    expect(original.call).toBeUndefined();
    expect(original.message).toBe('invalid_credentials (HTTP 401): bad credentials [request_id req_1]');
  });

  it('an error without any stack (a runtime that keeps none) gets one that names it', () => {
    const err = new ConnectionError('gone', undefined, 1, { cause: new Error('root') });
    Object.defineProperty(err, 'stack', { value: undefined, configurable: true, writable: true });
    const copy = withCallState(err, state('k'), 'note');
    expect(copy.stack).toBe('ConnectionError: gone (note)');
    expect((copy.cause as Error).message).toBe('root');
    // Without a note, the copy keeps the stack as it was.
    expect(withCallState(boundStackError('x'), state('k')).stack).toMatch(/^ApiError: invalid_credentials \(HTTP 401\): x/);
  });
});
