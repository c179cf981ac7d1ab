/**
 * What each error the SDK throws exposes to the caller: its class and name, the fields a caller
 * branches or retries on (code, extras, idempotency key, attempts), and a message that says what
 * happened. Produced through the client against a loopback server, as a caller meets them.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  ApiError,
  ConnectionError,
  InvalidArgumentError,
  MalformedResponseError,
  MerchantSdkError,
  PaginationRestartError,
  PaginationStalledError,
  ResponseValidationError,
  TimeoutError,
  isApiError,
  type MerchantClient,
} from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url, { maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

async function failure(p: PromiseLike<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

const KEY = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const withdraw = (c = client, options = {}) =>
  c.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: KEY, ...options });

describe('ApiError', () => {
  it('message, fields and JSON form', async () => {
    server.on('POST', '/v1/withdrawals', apiError(400, 'insufficient_balance'));
    const err = await failure(withdraw());
    if (!(err instanceof ApiError)) throw err;
    expect(err).toBeInstanceOf(MerchantSdkError);
    expect(err.name).toBe('ApiError');
    expect(err.message).toBe('insufficient_balance (HTTP 400): insufficient_balance happened [request_id req_insufficient_balance]');
    expect(String(err)).toBe(`ApiError: ${err.message}`);
    expect(err.toJSON()).toStrictEqual({
      name: 'ApiError',
      message: err.message,
      status: 400,
      code: 'insufficient_balance',
      type: 'invalid_request_error',
      requestId: 'req_insufficient_balance',
      idempotencyKey: KEY,
      attempts: 1,
      replayed: false,
      retryClass: 'new_key',
      extras: {},
      call: { idempotencyKey: KEY, sent: 'yes', status: 400, requestId: 'req_2', attempts: 1 },
    });
  });

  it('without a request id the message has no request_id part', async () => {
    // The wire server always sends X-Request-Id; blank it to see the message without one.
    server.on('POST', '/v1/withdrawals', {
      status: 400,
      body: { code: 'insufficient_balance', message: 'no funds' },
      headers: { 'x-request-id': '' },
    });
    const err = await failure(withdraw());
    expect(err.message).toBe('insufficient_balance (HTTP 400): no funds');
  });

  it('every documented extra field is in extras, and nothing else is', async () => {
    const extras = {
      limit_type: 'daily',
      limit_scope: 'member',
      challenge_id: 'ch_1',
      hosted_url: 'https://h.example/s',
      expires_at: 1763806900,
      retry_after: 30,
      fields: [{ key: 'iban', reason: 'format' }],
      reason: 'bad',
      locked_until: '2026-11-24T00:00:00Z',
    };
    server.on('POST', '/v1/withdrawals', apiError(400, 'limit_exceeded', { ...extras, undocumented: 'x', internal_rule: 7 }));
    const err = await failure(withdraw());
    if (!isApiError(err, 'limit_exceeded')) throw err;
    expect(err.extras).toStrictEqual(extras);
    // The whole body stays readable on raw.
    expect(err.raw).toMatchObject({ undocumented: 'x', internal_rule: 7 });
  });

  it('extras hold only the fields that came', async () => {
    server.on('POST', '/v1/withdrawals', apiError(400, 'limit_exceeded', { limit_type: 'single' }));
    const err = await failure(withdraw());
    expect(Object.keys((err as ApiError).extras)).toEqual(['limit_type']);
  });

  it('headers and raw are readable but not enumerable, so logs of the error do not print them', async () => {
    server.on('POST', '/v1/withdrawals', { ...apiError(403, 'insufficient_scope'), headers: { 'x-proxy': 'p1' } });
    const err = (await failure(withdraw())) as ApiError;
    expect(err.headers['x-proxy']).toBe('p1');
    expect(err.raw.code).toBe('insufficient_scope');
    expect(Object.keys(err)).not.toContain('headers');
    expect(Object.keys(err)).not.toContain('raw');
    expect(inspect(err)).not.toContain('x-proxy');
  });

  it('known and retryClass come from the code table; an unknown code is treated as api_error', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(403, 'ip_not_allowed'), apiError(500, 'brand_new_code'), apiError(500, 'api_error')]);
    const known = (await failure(withdraw())) as ApiError;
    const unknown = (await failure(withdraw())) as ApiError;
    const apiErr = (await failure(withdraw())) as ApiError;
    expect([known.known, known.retryClass]).toEqual([true, 'never']);
    expect([unknown.known, unknown.retryClass]).toEqual([false, 'same_key']);
    expect([apiErr.known, apiErr.retryClass]).toEqual([true, 'same_key']);
  });

  it('isApiError narrows by class, and by code when one is given', async () => {
    server.on('POST', '/v1/withdrawals', apiError(400, 'state_invalid'));
    const err = await failure(withdraw());
    expect(isApiError(err)).toBe(true);
    expect(isApiError(err, 'state_invalid')).toBe(true);
    // @ts-expect-error A typo of a known code does not compile.
    expect(isApiError(err, 'state')).toBe(false);
    // A code this SDK version does not know: compared by hand.
    expect(isApiError(err) && err.code === 'a_code_added_later').toBe(false);
    expect(isApiError(new Error('state_invalid'))).toBe(false);
    expect(isApiError({ code: 'state_invalid' }, 'state_invalid')).toBe(false);
  });
});

describe('failures without an error envelope', () => {
  it('ConnectionError: the connection broke; carries the key and the attempts', async () => {
    server.on('POST', '/v1/withdrawals', { reset: true });
    const once = wireClient(server.url, { maxRetries: 1 });
    const err = await failure(withdraw(once));
    await once.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(err.name).toBe('ConnectionError');
    expect(err.message).toMatch(/^Connection to the service failed \(POST \/v1\/withdrawals\): /);
    expect(err).toMatchObject({ idempotencyKey: KEY, attempts: 2 });
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('TimeoutError: no complete response in time; says the call may have executed and which key to retry with', async () => {
    server.on('POST', '/v1/withdrawals', { delayMs: 10_000, status: 201, body: {} });
    const short = wireClient(server.url, { maxRetries: 0, timeoutMs: 200 });
    const err = await failure(withdraw(short));
    await short.close();
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.name).toBe('TimeoutError');
    expect(err.message).toBe(
      `No complete response in time (timeoutMs 200 per attempt, 200 ms for the call) (POST /v1/withdrawals). (the call may have executed: retry with idempotency key ${KEY})`,
    );
    expect(err).toMatchObject({ idempotencyKey: KEY, attempts: 1, call: { sent: 'maybe', attempts: 1 } });
  });

  it('the message names the path without its query', async () => {
    server.on('GET', '/v1/reports', { reset: true });
    const err = await failure(client.request({ method: 'GET', path: '/v1/reports', query: { member: 'secret-ext-id' } }));
    expect(err.message).toContain('(GET /v1/reports)');
    expect(err.message).not.toContain('secret-ext-id');
  });

  it('AbortError: carries the key of the aborted call and the reason as its cause', async () => {
    const reason = new Error('user left');
    const err = await failure(withdraw(client, { signal: AbortSignal.abort(reason) }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err.name).toBe('AbortError');
    expect(err.message).toBe('The call was aborted by its AbortSignal. (nothing reached the service: calling again is safe)');
    expect((err as AbortError).idempotencyKey).toBe(KEY);
    expect(err.cause).toBe(reason);
  });

  it('MalformedResponseError: status, request id, a snippet and the key', async () => {
    server.on('POST', '/v1/withdrawals', { status: 403, body: '<html>Forbidden by proxy</html>', headers: { 'x-request-id': 'req_p' } });
    const err = await failure(withdraw());
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.name).toBe('MalformedResponseError');
    expect(err).toMatchObject({ status: 403, requestId: 'req_p', snippet: '<html>Forbidden by proxy</html>', idempotencyKey: KEY });
    expect(err.message).toBe(
      `HTTP 403 with a body that is not the service's error envelope [request_id req_p]: "<html>Forbidden by proxy</html>"`,
    );
  });

  it('AcceptedButUnreadableError: a 2xx body that is not JSON; the call was accepted, never retried', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: 'created!', headers: { 'x-request-id': 'req_c' } });
    const err = await failure(withdraw());
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect(err).not.toBeInstanceOf(MalformedResponseError);
    expect(err.name).toBe('AcceptedButUnreadableError');
    expect(err).toMatchObject({ status: 201, requestId: 'req_c', idempotencyKey: KEY, call: { sent: 'yes', status: 201 } });
    expect((err as AcceptedButUnreadableError).body).toBe('created!');
    expect(err.message).toBe('The call was accepted (HTTP 201, request_id req_c), but its body is not JSON.');
    expect(server.calls()).toHaveLength(1);
  });

  it('a malformed error keeps the first 200 characters; an unreadable 2xx the first 4096', async () => {
    const page = `<html>${'x'.repeat(5000)}</html>`;
    server.on('POST', '/v1/withdrawals', [
      { status: 400, body: page },
      { status: 200, body: page },
    ]);
    expect(((await failure(withdraw())) as MalformedResponseError).snippet).toBe(page.slice(0, 200));
    expect(((await failure(withdraw())) as AcceptedButUnreadableError).body).toBe(page.slice(0, 4096));
  });

  it('ResponseValidationError: the call was accepted; names the endpoint and the first issues, keeps the parsed body', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { id: 7, status: 'locked' }, headers: { 'x-request-id': 'req_v' } });
    const err = await failure(withdraw());
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect(err.name).toBe('ResponseValidationError');
    expect(err).toMatchObject({ requestId: 'req_v', status: 201 });
    expect(err.message).toMatch(
      /^The call was accepted \(HTTP 201, request_id req_v\), but the response of member\.withdrawals\.create does not match the documented shape: id: /,
    );
    expect((err as ResponseValidationError).issues[0]).toMatchObject({ path: ['id'] });
    expect((err as ResponseValidationError).parsed).toEqual({ id: 7, status: 'locked' });
    // At most three issues in the message, joined by "; ".
    expect(err.message.split('; ')).toHaveLength(3);
  });

  it('a 2xx with an empty body gives null data', async () => {
    server.on('POST', '/v1/anything', { status: 204 });
    expect(await client.request({ method: 'POST', path: '/v1/anything' })).toBeNull();
  });
});

describe('errors raised before sending', () => {
  it('InvalidArgumentError: names the argument first', async () => {
    let err: unknown;
    try {
      await client.request({ method: 'GET', path: 'v1/assets' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).name).toBe('InvalidArgumentError');
    expect((err as Error).message).toBe('path: must start with "/".');
    expect((err as InvalidArgumentError).argument).toBe('path');
  });

  it('PaginationRestartError: carries the expired cursor', async () => {
    const report = (id: string, minute: number) => ({
      id,
      kind: 'statements',
      status: 'ready',
      rows: 1,
      bytes: 1,
      error: '',
      expires_at: '2026-12-01T00:00:00Z',
      created_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
    });
    // The cursor expired: the service answers the first page again.
    server.on('GET', '/v1/reports', { body: { data: [report('rep_2', 2), report('rep_1', 1)], next_cursor: 'c1', has_more: true } });
    const err = await failure(client.reports.list().collect(10));
    expect(err).toBeInstanceOf(PaginationRestartError);
    expect(err.name).toBe('PaginationRestartError');
    expect((err as PaginationRestartError).cursor).toBe('c1');
    expect(err.message).toMatch(/restarted from its first page/);
  });

  it('PaginationRestartError built without an endpoint (by a caller) says "The list"', () => {
    const err = new PaginationRestartError('c9');
    expect(err.message).toBe(
      'The list restarted from its first page (the cursor expired or could not be decoded); stopping instead of yielding duplicates. Start a new iteration.',
    );
    expect(err).toMatchObject({ cursor: 'c9', endpoint: undefined, name: 'PaginationRestartError' });
    expect(new PaginationRestartError(null, 'GET /v1/reports').message).toMatch(
      /^The list GET \/v1\/reports restarted from its first page/,
    );
  });

  it('PaginationStalledError (a MerchantSdkError): a list claiming more pages without a cursor stops', async () => {
    server.on('GET', '/v1/assets', { body: { data: [{ id: 'a' }], next_cursor: null, has_more: true } });
    const err = await failure(client.assets.list().collect(10));
    expect(err.constructor).toBe(PaginationStalledError);
    expect(err).toBeInstanceOf(MerchantSdkError);
    expect(err.name).toBe('PaginationStalledError');
    expect((err as PaginationStalledError).reason).toBe('missing_cursor');
    expect(err.message).toMatch(/has_more: true without a next_cursor/);
  });
});
