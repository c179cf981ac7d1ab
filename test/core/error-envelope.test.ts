/**
 * Reading error responses (spec: Errors > Envelope: `{type, code, message, request_id}`, the
 * rate-limit response also wrapped in an object named `error`; clients branch on `code`): which
 * bodies become an ApiError, and what it then holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, MalformedResponseError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

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

async function errorFor(reply: Reply): Promise<Error> {
  server.on('GET', '/v1/assets', reply);
  try {
    await client.request({ method: 'GET', path: '/v1/assets' });
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('the two envelope shapes', () => {
  it('the wrapped shape is flattened; top-level fields win over the wrapped ones', async () => {
    const err = (await errorFor({
      status: 429,
      body: { error: { code: 'rate_limited', message: 'inner', retry_after: 5 }, message: 'outer', request_id: 'req_top' },
    })) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error', requestId: 'req_top', extras: { retry_after: 5 } });
    expect(err.message).toBe('rate_limited (HTTP 429): outer [request_id req_top]');
    expect(err.raw).toEqual({ code: 'rate_limited', message: 'outer', retry_after: 5, request_id: 'req_top' });
  });

  it('an error member that is not an object is not the wrapped shape', async () => {
    const err = await errorFor({ status: 400, body: { error: 'bad', code: 'invalid_request', message: 'm' } });
    expect(err).toMatchObject({ code: 'invalid_request' });
    expect((err as ApiError).raw).toEqual({ error: 'bad', code: 'invalid_request', message: 'm' });
    const arr = await errorFor({ status: 400, body: { error: ['x'] } });
    expect(arr).toBeInstanceOf(MalformedResponseError);
  });
});

describe('what makes an ApiError', () => {
  it('a non-empty string code; anything else is a malformed response', async () => {
    for (const body of ['null', '"just text"', '[{"code":"x"}]', '{"code":""}', '{"code":5}', '{"type":"api_error"}', '42']) {
      const err = await errorFor({ status: 500, body, headers: { 'content-type': 'application/json' } });
      expect(err, body).toBeInstanceOf(MalformedResponseError);
      expect((err as MalformedResponseError).snippet).toBe(body);
    }
  });

  it('the type comes from the body, else from the status as the spec maps it', async () => {
    expect(await errorFor({ status: 400, body: { code: 'c', type: 'custom_type' } })).toMatchObject({ type: 'custom_type' });
    for (const [status, type] of [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [403, 'permission_error'],
      [404, 'not_found'],
      [409, 'idempotency_error'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [502, 'upstream_error'],
      [504, 'upstream_timeout'],
      [418, 'api_error'],
      [503, 'api_error'],
    ] as const) {
      const err = await errorFor({ status, body: { code: 'some_code' } });
      expect(err, String(status)).toMatchObject({ status, type, code: 'some_code' });
    }
  });

  it('a message or request id that is not a string is left out', async () => {
    const err = (await errorFor({
      status: 400,
      body: { code: 'c1', message: { text: 'x' }, request_id: 7, type: 9 },
      headers: { 'x-request-id': 'req_hdr' },
    })) as ApiError;
    expect(err).toMatchObject({ requestId: 'req_hdr', type: 'invalid_request_error' });
    expect(err.message).toBe('c1 (HTTP 400):  [request_id req_hdr]');
  });

  it('a malformed body without a request id header says so without a request_id part', async () => {
    const err = await errorFor({ status: 502, body: 'Bad Gateway', headers: { 'x-request-id': '' } });
    expect(err.message).toBe(`HTTP 502 with a body that is not the service's error envelope: "Bad Gateway"`);
  });
});

describe('a hostile body cannot give an object a prototype', () => {
  it('a __proto__ member is dropped, also when spelled with \\u escapes, at any depth', async () => {
    for (const body of [
      '{"code":"c","__proto__":{"polluted":true},"fields":[{"key":"k","__proto__":{"x":1}}]}',
      '{"code":"c","\\u005f\\u005fproto\\u005f\\u005f":{"polluted":true}}',
      '{"error":{"code":"c","__proto__":{"polluted":true}},"message":"m"}',
    ]) {
      const err = (await errorFor({ status: 400, body, headers: { 'content-type': 'application/json' } })) as ApiError;
      expect(err.code, body).toBe('c');
      expect(Object.keys(err.raw)).not.toContain('__proto__');
      expect(Object.getPrototypeOf(err.raw)).toBe(Object.prototype);
      expect((err.raw as { polluted?: unknown }).polluted).toBeUndefined();
      const fields = (err.raw as { fields?: Array<Record<string, unknown>> }).fields;
      if (fields) expect(Object.keys(fields[0]!)).toEqual(['key']);
    }
  });

  it('in a 2xx body too', async () => {
    server.on('GET', '/v1/thing', {
      body: '{"id":"t","__proto__":{"polluted":true},"nested":{"\\u005f_proto__":{"polluted":true}}}',
      headers: { 'content-type': 'application/json' },
    });
    const data = await client.request<Record<string, unknown>>({ method: 'GET', path: '/v1/thing' });
    expect(Object.keys(data)).toEqual(['id', 'nested']);
    expect(Object.keys(data.nested as object)).toEqual([]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('text that merely mentions proto is kept', async () => {
    server.on('GET', '/v1/thing', { body: { id: 'prototype', note: 'a \u00e9 proto' } });
    expect(await client.request({ method: 'GET', path: '/v1/thing' })).toEqual({ id: 'prototype', note: 'a \u00e9 proto' });
  });
});
