import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AcceptedButUnreadableError,
  ApiError,
  MalformedResponseError,
  ResponseValidationError,
  isApiError,
  type MerchantClient,
} from '../../src/index.js';
import { ERROR_CODES, ERROR_TYPES } from '../../src/facts/error-codes.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

describe('the code table', () => {
  it('holds the 50 public codes with a status matching their type', () => {
    const codes = Object.keys(ERROR_CODES);
    expect(codes).toHaveLength(50);
    for (const code of codes) {
      const row = ERROR_CODES[code as keyof typeof ERROR_CODES];
      expect(ERROR_TYPES[row.type]).toBe(row.status);
    }
  });
  it('classes the spec retry rules', () => {
    for (const c of ['api_error', 'upstream_error', 'upstream_timeout', 'idempotency_in_progress'] as const)
      expect(ERROR_CODES[c].retry).toBe('same_key');
    for (const c of [
      'request_rejected',
      'insufficient_scope',
      'ip_not_allowed',
      'merchant_disabled',
      'product_not_available',
      'order_not_cancellable',
      'state_invalid',
      'not_found',
      'member_not_found',
      'resource_not_found',
    ] as const)
      expect(ERROR_CODES[c].retry).toBe('never');
    expect(ERROR_CODES.step_up_required.retry).toBe('after_step_up');
    expect(ERROR_CODES.rate_limited.retry).toBe('after_wait');
  });
});

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

describe('error responses', () => {
  it('exposes code, type, status, message, request id, headers, key and typed extras', async () => {
    server.on('POST', '/v1/remit/payees', apiError(400, 'invalid_fields', { fields: [{ key: 'iban', reason: 'format' }], reason: 'bad' }));
    const err = await client
      .request({ method: 'POST', path: '/v1/remit/payees', body: {}, onBehalfOf: 'm', idempotent: true })
      .catch((e: unknown) => e);
    if (!isApiError(err, 'invalid_fields')) throw new Error('expected invalid_fields');
    expect(err).toBeInstanceOf(ApiError);
    expect(err.type).toBe('invalid_request_error');
    expect(err.status).toBe(400);
    expect(err.message).toContain('invalid_fields happened');
    expect(err.requestId).toBe('req_invalid_fields');
    expect(err.headers['x-request-id']).toMatch(/^req_/);
    expect(err.idempotencyKey).toBe(server.calls()[0]!.headers['x-idempotency-key']);
    expect(err.extras.fields).toEqual([{ key: 'iban', reason: 'format' }]);
    expect(err.extras.reason).toBe('bad');
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ code: 'invalid_fields', requestId: 'req_invalid_fields' });
  });

  it('falls back to the X-Request-Id header when the body has none', async () => {
    server.on('GET', '/v1/kyc', { status: 404, body: { type: 'not_found', code: 'member_not_found', message: 'x' } });
    const err = await client.request({ method: 'GET', path: '/v1/kyc', onBehalfOf: 'm' }).catch((e: unknown) => e);
    expect(isApiError(err, 'member_not_found')).toBe(true);
    expect((err as ApiError).requestId).toMatch(/^req_\d+$/);
  });

  it('a truncated JSON error body gives a MalformedResponseError, not a parse crash', async () => {
    server.on('GET', '/v1/kyc', { status: 500, body: '{"type":"api_error","co' });
    const err = await client.request({ method: 'GET', path: '/v1/kyc', onBehalfOf: 'm' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).snippet).toBe('{"type":"api_error","co');
  });

  it('a 2xx body that does not match the schema raises ResponseValidationError with the request id', async () => {
    server.on('GET', '/v1/reports', { body: { data: 'nope', has_more: false } });
    const err = await client.reports.list().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).requestId).toMatch(/^req_/);
    expect((err as ResponseValidationError).issues.length).toBeGreaterThan(0);
  });

  it('names the offending field, what was expected and what came, in the message and the issues', async () => {
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: 25.5, ledger_scale: 6, to_address: 'T' },
    });
    const err = await client
      .member('m')
      .withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: 'T' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).issues).toEqual([
      { path: ['amount'], message: 'Invalid input: expected string, received number' },
    ]);
    expect((err as Error).message).toContain('amount: Invalid input: expected string, received number');
  });

  it('validation can be turned off per client', async () => {
    const loose = wireClient(server.url, { validateResponses: false });
    server.on('GET', '/v1/reports', { body: { data: 'nope', has_more: false } });
    const page = await loose.reports.list();
    expect(page.data).toBe('nope');
    await loose.close();
  });

  it('a huge body is cut at maxResponseBytes with a clear error', async () => {
    const big = wireClient(server.url, { maxResponseBytes: 1024, maxRetries: 0 });
    server.on('GET', '/v1/reports', { body: { data: [], has_more: false, pad: 'x'.repeat(10_000) } });
    const err = await big.reports.list().then(
      () => null,
      (e: unknown) => e,
    );
    // A 2xx was accepted: the error says so, with the status, and never offers a retry.
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect(err).toMatchObject({ status: 200, call: { sent: 'yes', status: 200 } });
    expect((err as Error).message).toMatch(/exceeds 1024 bytes/);
    server.on('GET', '/v1/assets', { status: 502, body: `<html>${'x'.repeat(5000)}</html>` });
    const bad = await big.assets.list().then(
      () => null,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(MalformedResponseError);
    expect((bad as Error).message).toMatch(/exceeds 1024 bytes/);
    await big.close();
  });
});

describe('what a hostile error response can make the SDK print', () => {
  it("a proxy's set-cookie stays on err.headers but out of util.inspect and JSON", async () => {
    const { inspect } = await import('node:util');
    server.on('GET', '/v1/assets', { ...apiError(400, 'invalid_request'), headers: { 'set-cookie': 'session=s3cr3t-cookie; HttpOnly' } });
    const err = await client.request({ method: 'GET', path: '/v1/assets' }).catch((e: unknown) => e);
    if (!isApiError(err, 'invalid_request')) throw new Error('expected invalid_request');
    expect(err.headers['set-cookie']).toBe('session=s3cr3t-cookie; HttpOnly');
    expect(err.raw['code']).toBe('invalid_request');
    expect(inspect(err, { depth: 10 })).not.toContain('s3cr3t-cookie');
    expect(JSON.stringify(err)).not.toContain('s3cr3t-cookie');
  });

  it('control characters in a code or message are escaped in the error and in log lines', async () => {
    const lines: string[] = [];
    const logged = wireClient(server.url, {
      maxRetries: 1,
      logLevel: 'debug',
      logger: { info: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`), warn: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`) },
    });
    server.on('GET', '/v1/assets', {
      status: 500,
      body: { type: 'api_error', code: 'odd\r\nX-Injected: 1', message: 'bad\u001b[31m red', request_id: 'r' },
    });
    const err = await logged.request({ method: 'GET', path: '/v1/assets' }).catch((e: unknown) => e);
    await logged.close();
    if (!(err instanceof ApiError)) throw new Error('expected an ApiError');
    // The code itself is kept as sent (it is the contract); what gets printed is escaped.
    expect(err.code).toBe('odd\r\nX-Injected: 1');
    expect(err.message).toContain('odd\\u000d\\u000aX-Injected: 1');
    expect(err.message).toContain('bad\\u001b[31m red');
    expect(err.message).not.toMatch(/[\r\n\u001b]/);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(/\\r\\n|\\u001b|[\r\n\u001b]/);
  });
});
