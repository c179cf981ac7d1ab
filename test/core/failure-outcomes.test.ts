/**
 * How each kind of failed attempt reaches the caller, over a loopback socket: the label and retry
 * class of the `retrying` log line, the error class and message, the cause, and the call state
 * (status, request id, key). Mutation testing showed these could change without a failing test.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  CallInterruptedError,
  ConnectionError,
  InvalidArgumentError,
  MalformedResponseError,
  RedirectRefusedError,
  ResponseValidationError,
  type LogFields,
  type MerchantClient,
  type MerchantClientOptions,
  type RequestLimiter,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { API_KEY, apiError, idempotencyKeysOn, startWireServer, type WireServer, ORDER, WITHDRAWAL } from '../helpers/wire-server.js';

let server: WireServer;
const clients: MerchantClient[] = [];
const retries: LogFields[] = [];
function client(options: Partial<MerchantClientOptions> = {}, url = server.url): MerchantClient {
  const c = wireClient(url, {
    logger: { warn: (message, fields) => void (message === 'retrying' && fields && retries.push(fields)) },
    ...options,
  });
  clients.push(c);
  return c;
}
const keysSent = (): string[] => idempotencyKeysOn(server, '/v1/withdrawals');

beforeEach(async () => {
  retries.length = 0;
  server = await startWireServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe('the retrying line names the failure and its retry class', () => {
  it.each([
    [
      'a non-JSON 502 (a proxy page)',
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>bad gateway</html>' },
      'malformed_502',
    ],
    ['a 500 api_error', apiError(500, 'api_error'), 'api_error'],
    ['a reset after the request was sent', { reset: true }, 'connection'],
  ])('%s: retried with the same key, logged as %s / same_key', async (_name, first, label) => {
    server.on('POST', '/v1/withdrawals', [first, { status: 201, body: ORDER }]);
    const order = await client().member('m-1').withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: label, retryClass: 'same_key', attempt: 1 });
    const keys = keysSent();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('an attempt that timed out after sending: timeout / same_key', async () => {
    server.on('POST', '/v1/withdrawals', [{ delayMs: 60_000 }, { status: 201, body: ORDER }]);
    const order = await client({ timeoutMs: 3_000 }).member('m-1').withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    expect(retries[0]).toMatchObject({ reason: 'timeout', retryClass: 'same_key' });
  });

  it('a refused connection: connection / not_sent, and the error keeps the socket code', async () => {
    // A port nothing listens on any more.
    const closed = await startWireServer();
    await closed.close();
    const err = await failure(client({ maxRetries: 1 }, closed.url).member('m-1').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: 'connection', retryClass: 'not_sent' });
    const e = err as ConnectionError;
    expect(e.call?.sent).toBe('no');
    // The token exchange is the step that met the closed port; the message says so, and what it
    // means for the withdrawal.
    expect(e.message).toMatch(
      /^Connection to the service failed \(POST \/v1\/connect\/token\): connect ECONNREFUSED [\d.:]+ \(during POST \/v1\/withdrawals: nothing reached the service: calling again is safe\)$/,
    );
    // The cause is a copy of the socket error: its code stays readable (and enumerable).
    const cause = e.cause as Error & { code?: string };
    expect(cause).toBeInstanceOf(Error);
    expect(Object.keys(cause)).toContain('code');
    expect(cause.code).toBe('ECONNREFUSED');
  });
});

describe('errors of a response the SDK refuses to read', () => {
  it('a redirect: RedirectRefusedError with the status, the Location origin only, and the call key', async () => {
    server.on('POST', '/v1/withdrawals', { status: 307, headers: { location: 'https://elsewhere.example/v1/withdrawals?token=x' } });
    const err = await failure(client().member('m-1').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(RedirectRefusedError);
    const e = err as RedirectRefusedError;
    expect(e.message).toBe(
      'The response was a redirect (HTTP 307) to https://elsewhere.example; the SDK never follows redirects. Check the base URL.',
    );
    expect(e.status).toBe(307);
    expect(e.locationOrigin).toBe('https://elsewhere.example');
    expect(e.call?.status).toBe(307);
    expect(e.idempotencyKey).toBe(keysSent()[0]);
    expect(keysSent()).toHaveLength(1);
  });

  it('a redirect without Location says so without an origin', async () => {
    server.on('POST', '/v1/withdrawals', { status: 308 });
    const err = (await failure(client().member('m-1').withdrawals.create(WITHDRAWAL))) as RedirectRefusedError;
    expect(err.message).toBe('The response was a redirect (HTTP 308); the SDK never follows redirects. Check the base URL.');
    expect(err.locationOrigin).toBeUndefined();
  });

  it('a 2xx body over maxResponseBytes: accepted, with the request id, never retried', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, headers: { 'x-request-id': 'req_big' }, body: { ...ORDER, pad: 'x'.repeat(500) } });
    const err = await failure(client({ maxResponseBytes: 128 }).member('m-1').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    const e = err as AcceptedButUnreadableError;
    expect(e.message).toMatch(/^HTTP 201: the call was accepted\. Response body exceeds 128 bytes \(POST \/v1\/withdrawals\)\./);
    expect(e.status).toBe(201);
    expect(e.requestId).toBe('req_big');
    expect(e.call).toMatchObject({ status: 201, requestId: 'req_big', sent: 'yes' });
    expect(keysSent()).toHaveLength(1);
  });

  it('a 5xx body over maxResponseBytes: malformed, carries the key, and is retried with it', async () => {
    server.on('POST', '/v1/withdrawals', { status: 502, headers: { 'x-request-id': 'req_5xx' }, body: 'y'.repeat(500) });
    const err = await failure(client({ maxResponseBytes: 128, maxRetries: 1 }).member('m-1').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(MalformedResponseError);
    const e = err as MalformedResponseError;
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/^Response body exceeds 128 bytes \(POST \/v1\/withdrawals\)\./);
    expect(e.call).toMatchObject({ status: 502, requestId: 'req_5xx' });
    const keys = keysSent();
    expect(keys).toHaveLength(2);
    expect(e.idempotencyKey).toBe(keys[0]);
    expect(keys[1]).toBe(keys[0]);
    expect(retries[0]).toMatchObject({ reason: 'malformed_502', retryClass: 'same_key' });
  });
});

describe("an abort at each place a call can wait ends it with the caller's reason, and is never retried", () => {
  // With no retry left, the abort is recognised from the attempt itself, not from a later wait.
  it.each([
    ['no retry left', { maxRetries: 0 }],
    ['retries left', {}],
  ])('while the request is on the wire, %s: the key it was sent with, no retry logged', async (_name, options) => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    server.on('POST', '/v1/withdrawals', () => {
      controller.abort(reason);
      return new Promise(() => undefined);
    });
    const err = await failure(client(options).member('m-1').withdrawals.create(WITHDRAWAL, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ cause: reason, call: { sent: 'maybe', attempts: 1 } });
    expect((err as AbortError).idempotencyKey).toBe(keysSent()[0]);
    expect(retries).toHaveLength(0);
    expect(keysSent()).toHaveLength(1);
  });

  it('while waiting for a token', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    server.onToken(() => {
      controller.abort(reason);
      // The exchange itself completes a moment later, for nobody.
      return new Promise((resolve) =>
        setTimeout(() => resolve({ body: { auth_token: 'tok_late', expired_at: 4102444800, token_type: 'Bearer', scopes: [] } }), 20),
      );
    });
    const err = await failure(client().member('m-1').withdrawals.create(WITHDRAWAL, { signal: controller.signal }));
    expect(err).toMatchObject({ name: 'AbortError', cause: reason, call: { sent: 'no', attempts: 0 } });
    expect(keysSent()).toHaveLength(0);
  });

  it('during the wait before a retry', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    server.on('POST', '/v1/withdrawals', apiError(502, 'upstream_error'));
    const c = client({
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
      // The retry's wait starts right after this line: the abort lands in it.
      logger: { warn: (message) => void (message === 'retrying' && controller.abort(reason)) },
    });
    const err = await failure(c.member('m-1').withdrawals.create(WITHDRAWAL, { signal: controller.signal }));
    expect(err).toMatchObject({ name: 'AbortError', cause: reason, call: { sent: 'yes', status: 502, attempts: 1 } });
    expect(keysSent()).toHaveLength(1);
  });
});

describe('what a transport threw is the cause, with secrets masked', () => {
  // A caller's fetch that fails the withdrawal after it was handed over (so the call may have executed).
  const failingFetch =
    (thrown: () => unknown) =>
    (url: string, init: RequestInit): Promise<Response> =>
      url.endsWith('/v1/withdrawals') ? Promise.reject(thrown()) : fetch(url, init);
  const failed = async (thrown: () => unknown): Promise<ConnectionError> => {
    const err = await failure(
      client({ fetch: failingFetch(thrown), maxRetries: 0 })
        .member('m-1')
        .withdrawals.create(WITHDRAWAL),
    );
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).call).toMatchObject({ sent: 'maybe' });
    return err as ConnectionError;
  };

  it('an Error: its name, message and stack kept, the secret in them masked, no code invented', async () => {
    function socketLayerFailure(): Error {
      const e = new Error(`upstream closed the stream for ${API_KEY}`);
      e.name = 'SocketLayerError';
      return e;
    }
    const err = await failed(socketLayerFailure);
    const cause = err.cause as Error;
    expect(cause).toBeInstanceOf(Error);
    expect(cause.name).toBe('SocketLayerError');
    expect(cause.message).toBe('upstream closed the stream for [redacted]');
    // The stack still says where it was thrown; the key is masked there too.
    expect(cause.stack).toContain('socketLayerFailure');
    expect(cause.stack).toContain('[redacted]');
    expect(cause.stack).not.toContain(API_KEY);
    expect(Object.keys(cause)).not.toContain('code');
    expect(err.message).toContain('upstream closed the stream for [redacted]');
  });

  it('a string: masked; anything else: passed on unchanged', async () => {
    const text = await failed(() => `reset while sending ${API_KEY}`);
    expect(text.cause).toBe('reset while sending [redacted]');
    const odd = { reason: 'odd' };
    const object = await failed(() => odd);
    expect(object.cause).toBe(odd);
  });
});

describe('a 2xx that does not match the documented shape says what it received', () => {
  it.each([
    ['a string for the action', 'slippage', 'action: Invalid input: matches none of the documented shapes'],
    ['a known kind with a broken shape', { kind: 'slippage' }, 'action.kind: known action kind with an invalid shape'],
  ])('a pending action: %s', async (_name, action, issue) => {
    server.on('GET', '/v1/remittances/rmt_1/pending-action', { body: { id: 'rmt_1', waiting_on: 'member', action } });
    const err = (await failure(client().member('m-1').remittances.pendingAction('rmt_1'))) as ResponseValidationError;
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toMatch(/, but the response of member\.remittances\.pendingAction does not match the documented shape: (.*)$/);
    expect(err.message.endsWith(`documented shape: ${issue}`)).toBe(true);
  });

  it.each([
    ['an array for the object', [ORDER], '(root): Invalid input: expected object, received array'],
    ['null for a string', { ...ORDER, id: null }, 'id: Invalid input: expected string, received null'],
    ['a number for a string', { ...ORDER, id: 7 }, 'id: Invalid input: expected string, received number'],
  ])('%s', async (_name, body, issue) => {
    server.on('POST', '/v1/withdrawals', { status: 201, headers: { 'x-request-id': 'req_shape' }, body });
    const err = (await failure(client().member('m-1').withdrawals.create(WITHDRAWAL))) as ResponseValidationError;
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toBe(
      `The call was accepted (HTTP 201, request_id req_shape), but the response of member.withdrawals.create does not match the documented shape: ${issue}`,
    );
  });
});

describe('retries the spec allows, and no more', () => {
  it('an unknown code is retried once, even after a retry of a known one', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(500, 'api_error'), apiError(500, 'brand_new_code'), { status: 201, body: ORDER }]);
    const order = await client().member('m-1').withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    expect(retries.map((r) => r['reason'])).toEqual(['api_error', 'brand_new_code']);
    expect(new Set(keysSent()).size).toBe(1);
    expect(keysSent()).toHaveLength(3);
  });

  it('a token exchange answered invalid_token: the caller gets that ApiError; nothing is renewed or sent', async () => {
    server.onToken(apiError(401, 'invalid_token'));
    const err = await failure(client().member('m-1').withdrawals.create(WITHDRAWAL));
    expect(err).toMatchObject({ name: 'ApiError', code: 'invalid_token', status: 401 });
    expect(server.tokenExchanges()).toBe(1);
    expect(keysSent()).toHaveLength(0);
  });

  it('a limiter with acquire only (settle is optional) admits and the call succeeds', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const acquired: string[] = [];
    const limiter: RequestLimiter = {
      acquire: (bucket) => {
        acquired.push(bucket);
        return Promise.resolve();
      },
    };
    expect((await client({ limiter }).member('m-1').withdrawals.create(WITHDRAWAL)).id).toBe('wdr_1');
    expect(acquired).toEqual(['orders']);
  });
});

describe('a step other than the attempt fails (a limiter): CallInterruptedError', () => {
  it('names the step failure, masks secrets in it, keeps its code, and says nothing was sent', async () => {
    const refusal = Object.assign(new Error(`quota store refused key ${API_KEY}`), { code: 'EQUOTA' });
    const limiter: RequestLimiter = {
      acquire: () => Promise.reject(refusal),
    };
    const err = (await failure(client({ limiter }).member('m-1').withdrawals.create(WITHDRAWAL))) as CallInterruptedError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.name).toBe('CallInterruptedError');
    expect(err.message).toBe(
      'A step of the call failed: quota store refused key [redacted] (during POST /v1/withdrawals: nothing reached the service: calling again is safe)',
    );
    const cause = err.cause as Error & { code?: string };
    expect(cause.message).toBe('quota store refused key [redacted]');
    expect(cause.stack).not.toContain(API_KEY);
    expect(cause.code).toBe('EQUOTA');
    expect(err.call).toMatchObject({ sent: 'no', attempts: 0 });
    expect(keysSent()).toHaveLength(0);
  });

  it('a limiter that rejects with a string: the string, masked, is the message and the cause', async () => {
    const limiter: RequestLimiter = {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a foreign limiter may do this
      acquire: () => Promise.reject(`down for ${API_KEY}`),
    };
    const err = (await failure(client({ limiter }).member('m-1').withdrawals.create(WITHDRAWAL))) as CallInterruptedError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.message).toMatch(/^A step of the call failed: down for \[redacted\] \(during POST \/v1\/withdrawals: /);
    expect(err.cause).toBe('down for [redacted]');
  });
});

describe('an answer without a request id', () => {
  it('the accepted-but-unreadable message leaves the request id out', async () => {
    // No x-request-id on any answer, the token exchange's included.
    const bare = createHttpServer((req, res) => {
      if (req.url === '/v1/connect/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ auth_token: 'tok_bare', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
        );
        return;
      }
      res.writeHead(201, { 'content-type': 'text/plain' });
      res.end('created');
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = bare.address() as AddressInfo;
      const err = await failure(client({}, `http://127.0.0.1:${port}`).request({ method: 'GET', path: '/v1/anything' }));
      expect(err).toBeInstanceOf(AcceptedButUnreadableError);
      expect((err as Error).message).toBe('The call was accepted (HTTP 201), but its body is not JSON.');
      expect((err as AcceptedButUnreadableError).requestId).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => bare.close(() => resolve()));
    }
  });
});

describe('refused before anything is sent', () => {
  it('a body JSON cannot express, a header with a control character, an idempotency key that is not a string', async () => {
    const c = client();
    // Thrown or rejected, the caller sees the same error.
    const refusal = (call: () => PromiseLike<unknown>): Promise<unknown> => failure(Promise.resolve().then(call));
    const body = await refusal(() => c.request({ method: 'POST', path: '/v1/anything', body: Symbol('not json') }));
    expect(body).toBeInstanceOf(InvalidArgumentError);
    expect((body as Error).message).toBe('body: must be JSON-serialisable.');
    const header = await refusal(() => c.request({ method: 'GET', path: '/v1/assets', options: { headers: { 'x-trace': 'a\nb' } } }));
    expect((header as Error).message).toBe('headers: x-trace must not contain control characters.');
    const uuid = '123e4567-e89b-42d3-a456-426614174000';
    // A String object prints like the key but is not one.
    const key = await refusal(() => c.member('m-1').withdrawals.create(WITHDRAWAL, { idempotencyKey: Object(uuid) as string }));
    expect(key).toBeInstanceOf(InvalidArgumentError);
    expect((key as InvalidArgumentError).argument).toBe('idempotencyKey');
    expect(server.requests).toHaveLength(0);
  });
});
