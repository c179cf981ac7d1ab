/**
 * What the client tells its logger (client option `logger`: "method, path, status, attempt,
 * duration and request id; never secrets or bodies"): one line per attempt outcome, with the
 * fields an operator filters on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogFields, MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

interface Line {
  level: string;
  message: string;
  fields: LogFields | undefined;
}

let server: WireServer;
let client: MerchantClient;
let lines: Line[];
beforeEach(async () => {
  server = await startWireServer();
  lines = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  client = wireClient(server.url, {
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    logLevel: 'debug',
  });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/**
 * Lines of the business call: its attempts (by `path`) and its end (by `route`); the token
 * exchange logs its own.
 */
const callLines = (path: string) => {
  const startsWith = (value: unknown) => typeof value === 'string' && value.startsWith(path);
  return lines.filter((l) => startsWith(l.fields?.path) || startsWith(l.fields?.route));
};

describe('log lines of a call', () => {
  it('a success: debug "request succeeded" with method, path and query, status, attempt, duration and request id', async () => {
    server.on('GET', '/v1/assets', { body: {}, headers: { 'x-request-id': 'req_ok' } });
    await client.request({ method: 'GET', path: '/v1/assets', query: { limit: 5 } });
    const line = lines.find((l) => l.fields?.path === '/v1/assets?limit=5')!;
    expect(line).toMatchObject({ level: 'debug', message: 'request succeeded' });
    expect(line.fields).toEqual({
      method: 'GET',
      path: '/v1/assets?limit=5',
      status: 200,
      attempt: 1,
      durationMs: expect.any(Number) as number,
      requestId: 'req_ok',
    });
    expect(line.fields!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('an error response, then its retry: debug "request failed" with the code, warn "retrying" with the delay and reason', async () => {
    server.on('POST', '/v1/withdrawals', [
      { ...apiError(502, 'upstream_error'), headers: { 'x-request-id': 'req_up' } },
      { status: 201, body: {} },
    ]);
    await client.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true });
    const mine = callLines('/v1/withdrawals');
    expect(mine.map((l) => `${l.level} ${l.message}`)).toEqual([
      'debug request failed',
      'warn retrying',
      'debug request succeeded',
      'info call succeeded',
    ]);
    // The request id of the body wins over the header's.
    expect(mine[0]!.fields).toEqual({
      method: 'POST',
      path: '/v1/withdrawals',
      status: 502,
      attempt: 1,
      durationMs: expect.any(Number) as number,
      requestId: 'req_upstream_error',
      code: 'upstream_error',
    });
    expect(mine[1]!.fields).toEqual({
      endpoint: 'request',
      method: 'POST',
      path: '/v1/withdrawals',
      attempt: 1,
      delayMs: expect.any(Number) as number,
      reason: 'upstream_error',
      retryClass: 'same_key',
      idempotencyKey: server.calls()[0]!.headers['x-idempotency-key'],
    });
    expect(mine[2]!.fields).toMatchObject({ attempt: 2, status: 201 });
    expect(mine[3]!.fields).toMatchObject({ route: '/v1/withdrawals', status: 201, attempts: 2, sent: 'yes', replayed: false });
  });

  it('a body that is not the error envelope: debug "request failed with a malformed body", retried as malformed_<status>', async () => {
    server.on('POST', '/v1/withdrawals', [
      { status: 503, body: '<html>down</html>', headers: { 'x-request-id': 'req_html' } },
      { status: 201, body: {} },
    ]);
    await client.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true });
    const mine = callLines('/v1/withdrawals');
    expect(mine.map((l) => `${l.level} ${l.message}`)).toEqual([
      'debug request failed with a malformed body',
      'warn retrying',
      'debug request succeeded',
      'info call succeeded',
    ]);
    expect(mine[0]!.fields).toEqual({
      method: 'POST',
      path: '/v1/withdrawals',
      status: 503,
      attempt: 1,
      durationMs: expect.any(Number) as number,
      requestId: 'req_html',
    });
    expect(mine[1]!.fields).toMatchObject({ reason: 'malformed_503' });
  });

  it('a broken connection is retried with reason "connection"', async () => {
    server.on('POST', '/v1/withdrawals', [{ reset: true }, { status: 201, body: {} }]);
    await client.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true });
    const retry = lines.find((l) => l.message === 'retrying')!;
    expect(retry).toMatchObject({ level: 'warn', fields: { reason: 'connection', attempt: 1 } });
  });

  it('a client timeout is retried with reason "timeout"', async () => {
    const short = wireClient(server.url, {
      timeoutMs: 300,
      logger: { warn: (message, fields) => void lines.push({ level: 'warn', message, fields }) },
    });
    server.on('POST', '/v1/withdrawals', [
      { delayMs: 10_000, status: 201, body: {} },
      { status: 201, body: {} },
    ]);
    await short.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true });
    await short.close();
    expect(lines.find((l) => l.message === 'retrying')).toMatchObject({ fields: { reason: 'timeout' } });
  });

  it('a corrected clock: warn with the offset learned from the Date header', async () => {
    server.on('POST', '/v1/exchange/orders', (req) => {
      const serverNow = Date.now() + 600_000;
      const date = new Date(serverNow).toUTCString();
      return Math.abs(Number(req.headers['x-timestamp']) - serverNow / 1000) > 300
        ? { ...apiError(401, 'timestamp_out_of_range'), headers: { date } }
        : { status: 201, body: {}, headers: { date } };
    });
    await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {} });
    const line = lines.find((l) => l.message === 'corrected the signing clock from the service Date header')!;
    expect(line.level).toBe('warn');
    expect(line.fields).toEqual({ offsetMs: client.clockOffsetMs });
    expect(Math.round(client.clockOffsetMs / 60_000)).toBe(10);
  });
});
