/**
 * Money is never lost in the unknown: every case of the money-state issue, over real loopback
 * sockets against hostile servers. Each section is one numbered case of the issue.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inspect } from 'node:util';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Agent, interceptors, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  type ApiError,
  CallInterruptedError,
  ClockSkewError,
  ConnectionError,
  OutcomeUnknownError,
  RedirectRefusedError,
  ResponseValidationError,
  TimeoutError,
  isApiError,
  type MerchantClient,
  type MerchantClientOptions,
  type RequestLimiter,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import {
  API_KEY,
  SIGNING_KEY,
  apiError,
  idempotencyKeysOn,
  startWireServer,
  type Reply,
  type WireServer,
  ORDER,
  WITHDRAWAL,
} from '../helpers/wire-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const never = (): Promise<Reply> => new Promise<Reply>(() => undefined);

let server: WireServer;
const clients: MerchantClient[] = [];
function client(options: Partial<MerchantClientOptions> = {}): MerchantClient {
  const c = wireClient(server.url, options);
  clients.push(c);
  return c;
}
const withdrawals = (): string[] => idempotencyKeysOn(server, '/v1/withdrawals');

beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe('1. a step before the retry of a write that may have executed fails: the caller keeps the key', () => {
  it('token renewal answers 401 invalid_credentials after a 504: the error carries the withdrawal key and says it may have executed', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(504, 'upstream_timeout'), apiError(401, 'invalid_token')]);
    server.onToken((_req, n) => (n === 0 ? { body: token('tok_1') } : apiError(401, 'invalid_credentials')));
    const err = await failure(client().member('m').withdrawals.create(WITHDRAWAL));

    expect(isApiError(err, 'invalid_credentials')).toBe(true);
    const keys = withdrawals();
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect(err).toMatchObject({ idempotencyKey: keys[0], call: { idempotencyKey: keys[0], sent: 'yes', attempts: 2 } });
    expect((err as Error).message).toContain(`retry with idempotency key ${keys[0]}`);
  });

  it('token renewal answers 503 after a reset: same', async () => {
    server.on('POST', '/v1/withdrawals', [{ reset: true }, apiError(401, 'invalid_token')]);
    server.onToken((_req, n) => (n === 0 ? { body: token('tok_1') } : { status: 503, body: '<html>down</html>' }));
    const err = await failure(client({ maxRetries: 1 }).member('m').withdrawals.create(WITHDRAWAL));
    const keys = withdrawals();
    expect(keys[0]).toMatch(UUID);
    expect(err).toMatchObject({ idempotencyKey: keys[0], call: { idempotencyKey: keys[0], sent: 'yes' } });
  });

  it('token renewal times out after the write timed out: the key is kept, the state says maybe', async () => {
    server.on('POST', '/v1/withdrawals', [{ stallBody: true, status: 201, body: ORDER }, apiError(401, 'invalid_token')]);
    server.onToken((_req, n) => (n === 0 ? { body: token('tok_1') } : never()));
    const err = await failure(client({ timeoutMs: 300, maxRetries: 1 }).member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(TimeoutError);
    const keys = withdrawals();
    expect(err).toMatchObject({ idempotencyKey: keys[0], call: { idempotencyKey: keys[0], sent: 'yes' } });
  });

  it('a custom limiter rejects before the retry: a CallInterruptedError with the key, the cause kept', async () => {
    server.on('POST', '/v1/withdrawals', apiError(502, 'upstream_error'));
    const refusal = new Error('quota store unavailable');
    let acquired = 0;
    const limiter: RequestLimiter = {
      acquire: async () => {
        if (++acquired > 1) throw refusal;
      },
    };
    const err = await failure(client({ limiter }).member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect((err as Error).cause).toMatchObject({ message: 'quota store unavailable' });
    const keys = withdrawals();
    expect(keys).toHaveLength(1);
    expect(err).toMatchObject({ idempotencyKey: keys[0], call: { sent: 'yes', status: 502, attempts: 1 } });
  });

  it('a token exchange that times out before anything was sent says so, with the key the call would have used', async () => {
    server.onToken(never);
    const err = await failure(client({ timeoutMs: 200, maxRetries: 0 }).member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(withdrawals()).toHaveLength(0);
    expect((err as TimeoutError).call).toMatchObject({ sent: 'no', attempts: 0 });
    expect((err as TimeoutError).idempotencyKey).toMatch(UUID);
    expect((err as Error).message).not.toMatch(/may have executed/);
    expect((err as Error).message).toMatch(/nothing reached the service/);
  });

  it('the documented recipe works from such an error: the same key, once more, executes nothing twice', async () => {
    let executed = 0;
    server.on('POST', '/v1/withdrawals', (_req, n) => {
      if (n === 0) {
        executed++;
        return apiError(504, 'upstream_timeout');
      }
      return n === 1 ? apiError(401, 'invalid_token') : { status: 201, headers: { 'x-idempotent-replay': 'true' }, body: ORDER };
    });
    server.onToken((_req, n) => (n === 1 ? apiError(401, 'invalid_credentials') : { body: token(`tok_${n}`) }));
    const c = client();
    const err = await failure(c.member('m').withdrawals.create(WITHDRAWAL));
    const key = (err as ApiError).call!.idempotencyKey!;
    const again = await c.member('m').withdrawals.create(WITHDRAWAL, { idempotencyKey: key }).withResponse();
    expect(again.response.replayed).toBe(true);
    expect(executed).toBe(1);
    expect(new Set(withdrawals())).toEqual(new Set([key]));
  });
});

describe('2. a write answered 2xx with a body that does not fit: the service accepted it', () => {
  const cases: Array<[string, Reply]> = [
    ['an empty body', { status: 201, body: '' }],
    ['204 No Content', { status: 204 }],
    ['null', { status: 201, body: 'null' }],
    ['a field of another type', { status: 201, body: { ...ORDER, amount: 25.5 } }],
    ['an HTML page', { status: 200, body: '<html>ok</html>' }],
  ];
  for (const [label, reply] of cases) {
    it(`${label}: AcceptedButUnreadableError with key, status, request id and the raw body; never retried`, async () => {
      server.on('POST', '/v1/withdrawals', reply);
      const err = await failure(client().member('m').withdrawals.create(WITHDRAWAL));
      expect(err).toBeInstanceOf(AcceptedButUnreadableError);
      const keys = withdrawals();
      expect(keys).toHaveLength(1);
      const e = err as AcceptedButUnreadableError;
      expect(e).toMatchObject({ status: reply.status, requestId: 'req_2', idempotencyKey: keys[0] });
      expect(e.call).toEqual({ idempotencyKey: keys[0], sent: 'yes', status: reply.status, requestId: 'req_2', attempts: 1 });
      expect(e.body).toBe(typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body));
      expect(e.message).toMatch(/accepted/);
    });
  }

  it('a schema mismatch is a ResponseValidationError (an AcceptedButUnreadableError) with the parsed body', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, amount: 25.5 } });
    const err = await failure(client().member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).parsed).toEqual({ ...ORDER, amount: 25.5 });
    expect((err as ResponseValidationError).issues.map((i) => i.path.join('.'))).toEqual(['amount']);
  });

  it('with validateResponses: false the parsed body is returned', async () => {
    server.on('POST', '/v1/withdrawals', [
      { status: 201, body: { ...ORDER, amount: 25.5 } },
      { status: 201, body: 'null' },
    ]);
    const c = client({ validateResponses: false });
    expect(await c.member('m').withdrawals.create(WITHDRAWAL)).toEqual({ ...ORDER, amount: 25.5 });
    expect(await c.member('m').withdrawals.create(WITHDRAWAL)).toBeNull();
  });

  it('a UTF-8 byte order mark before the JSON is dropped', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: `\uFEFF${JSON.stringify(ORDER)}` });
    expect(await client().member('m').withdrawals.create(WITHDRAWAL)).toEqual(ORDER);
  });

  for (const [encoding, compress] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`a ${encoding}-encoded body on the default transport is decoded (the SDK asked for identity)`, async () => {
      const raw = await rawServer((req, res) => {
        if (req.url === '/v1/connect/token') return json(res, 200, token('tok_1'));
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': encoding, 'x-request-id': 'req_z' });
        res.end(compress(Buffer.from(JSON.stringify(ORDER))));
      });
      const c = rawClient(raw);
      expect(await c.member('m').withdrawals.create(WITHDRAWAL)).toEqual(ORDER);
      expect(raw.requests.at(-1)!.headers['accept-encoding']).toBe('identity');
    });
  }

  it('a compressed body that inflates past maxResponseBytes is refused, as the service accepted it', async () => {
    const raw = await rawServer((req, res) => {
      if (req.url === '/v1/connect/token') return json(res, 200, token('tok_1'));
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.from(JSON.stringify({ ...ORDER, pad: 'x'.repeat(1_000_000) }))));
    });
    const err = await failure(
      rawClient(raw, { maxResponseBytes: 64 * 1024 })
        .member('m')
        .withdrawals.create(WITHDRAWAL),
    );
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect((err as Error).message).toMatch(/exceeds 65536 bytes/);
  });
});

describe('3. raw requests: writes carry a key by default, a keyless write is never retried once it may have executed', () => {
  it('a POST gets an idempotency key without asking, and a 500 is retried with it', async () => {
    server.on('POST', '/v1/exchange/orders', [apiError(500, 'api_error'), { status: 201, body: { id: 'ex_1' } }]);
    const r = await client().request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' }).withResponse();
    const calls = server.calls();
    expect(calls).toHaveLength(2);
    expect(calls[0]!.headers['x-idempotency-key']).toMatch(UUID);
    expect(calls[1]!.headers['x-idempotency-key']).toBe(calls[0]!.headers['x-idempotency-key']);
    expect(r.response.idempotencyKey).toBe(calls[0]!.headers['x-idempotency-key']);
  });

  it('sendsIdempotencyKey: false sends no key, and neither a 500 nor a reset is retried', async () => {
    server.on('POST', '/v1/exchange/orders', [apiError(500, 'api_error'), { reset: true }, { status: 201, body: {} }]);
    const c = client();
    const e1 = await failure(c.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, sendsIdempotencyKey: false }));
    expect(e1).toMatchObject({ code: 'api_error', retryClass: 'never', call: { idempotencyKey: undefined, sent: 'yes' } });
    const e2 = await failure(c.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, idempotent: false }));
    expect(e2).toBeInstanceOf(ConnectionError);
    expect((e2 as ConnectionError).call).toMatchObject({ sent: 'maybe', idempotencyKey: undefined });
    expect((e2 as Error).message).toMatch(/no idempotency key: check its effect/);
    expect(server.calls()).toHaveLength(2);
    expect(server.calls().every((r) => r.headers['x-idempotency-key'] === undefined)).toBe(true);
  });

  it('a keyless write is still retried when nothing was executed: a 429, or a refused connection', async () => {
    server.on('POST', '/v1/exchange/orders', [
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { type: 'rate_limit_error', code: 'rate_limited', message: 'x', request_id: 'r' },
      },
      { status: 201, body: { id: 'ex_1' } },
    ]);
    await client().request({ method: 'POST', path: '/v1/exchange/orders', body: {}, idempotent: false });
    expect(server.calls()).toHaveLength(2);
  });

  it('GET and HEAD carry no key by default', async () => {
    server.on('GET', '/v1/assets', { body: { data: [] } });
    await client().request({ method: 'GET', path: '/v1/assets' });
    expect(server.calls()[0]!.headers['x-idempotency-key']).toBeUndefined();
  });
});

describe('4. server text that echoes a secret never reaches an error, a log line, inspect or JSON', () => {
  const PIN = '9371';
  it.each(['undici', 'fetch'] as const)(
    '%s transport: api key, signing key, token, signature and PIN echoed in message, code, request id, headers and body are masked',
    async (transport) => {
      const lines: string[] = [];
      const logger = { debug: rec, info: rec, warn: rec, error: rec };
      function rec(message: string, fields?: unknown): void {
        lines.push(`${message} ${JSON.stringify(fields)}`);
      }
      let lastSignature = '';
      let lastToken = '';
      // What a hostile server can echo: the client's keys (as if leaked elsewhere), and what this
      // request carried: its token, its signature, the PIN of its body.
      const echo = (req: { headers: Record<string, string>; body: Buffer }): string => {
        lastSignature = req.headers['x-signature'] ?? lastSignature;
        lastToken = (req.headers['x-auth-token'] ?? '').replace('Bearer ', '') || lastToken;
        const pin = req.body.toString().includes(PIN) ? PIN : '';
        return `${API_KEY}|${SIGNING_KEY}|${lastToken}|${lastSignature}|${pin}|${encodeURIComponent(lastToken)}`;
      };
      server.on('POST', '/v1/cards/crd_1/activate', (req) => ({
        status: 400,
        headers: { 'x-request-id': `rid-${echo(req)}`, 'x-echo': echo(req) },
        body: {
          type: 'invalid_request_error',
          code: `state_invalid ${echo(req)}`,
          message: `echo ${echo(req)}`,
          request_id: echo(req),
          reason: echo(req),
        },
      }));
      server.on('POST', '/v1/withdrawals', (req) => ({
        status: 502,
        body: `<html>proxy saw ${echo(req)} ${JSON.stringify(req.headers)}</html>`,
      }));
      server.on('POST', '/v1/exchange/orders', (req) => ({ status: 201, body: `not json ${echo(req)}` }));
      const c = client({ logger, logLevel: 'debug', maxRetries: 0, transport });
      const errors = [
        await failure(c.member('m').cards.activate('crd_1', { expiry: '07/29', pin: PIN })),
        await failure(c.member('m').withdrawals.create(WITHDRAWAL)),
        await failure(c.member('m').exchange.order({})),
      ];
      expect(lastSignature).not.toBe('');
      const secrets = [API_KEY, SIGNING_KEY, lastToken, lastSignature, PIN];
      const texts = [
        ...lines,
        ...errors.flatMap((e) => [
          String(e),
          (e as Error).stack ?? '',
          inspect(e, { depth: 10, showHidden: false }),
          JSON.stringify(e),
          JSON.stringify((e as { raw?: unknown }).raw ?? null),
          JSON.stringify((e as { headers?: unknown }).headers ?? null),
          (e as { body?: string }).body ?? '',
          (e as { snippet?: string }).snippet ?? '',
        ]),
      ];
      // The PIN is four digits: a random key, nonce or timestamp may hold them by chance, inside a
      // longer run of hex digits. A leak is the PIN standing alone (the echo puts it between "|").
      const leaks = (text: string, secret: string): boolean =>
        secret === PIN ? new RegExp(`(?<![0-9a-fA-F])${PIN}(?![0-9a-fA-F])`).test(text) : text.includes(secret);
      for (const secret of secrets) for (const text of texts) expect(leaks(text, secret), `${secret} in ${text.slice(0, 200)}`).toBe(false);
      expect(errors[0]).toMatchObject({ status: 400 });
      expect(String(errors[0])).toContain('[redacted]');
    },
  );

  it('the fetch transport does not put a token with CR/LF into a ConnectionError', async () => {
    server.onToken({ body: token('tok_evil\r\nx-injected: 1') });
    server.on('GET', '/v1/assets', { body: { data: [] } });
    const err = await failure(client({ transport: 'fetch', maxRetries: 0 }).assets.list());
    expect(err).toBeInstanceOf(ConnectionError);
    for (const text of [String(err), (err as Error).stack ?? '', inspect(err, { depth: 10 }), JSON.stringify(err)]) {
      expect(text).not.toContain('tok_evil');
    }
    expect(server.calls()).toHaveLength(0);
  });
});

describe('5. redirects are never followed, whatever the dispatcher or fetch', () => {
  let other: RawServer;
  beforeEach(async () => {
    other = await rawServer((_req, res) => json(res, 201, { id: 'wdr_evil', status: 'locked' }));
  });
  afterEach(async () => {
    await other.close();
  });

  for (const status of [307, 308, 302]) {
    it(`a caller's dispatcher composed with undici's redirect interceptor: a ${status} to another host sends that host nothing`, async () => {
      server.on('POST', '/v1/withdrawals', { status, headers: { location: `${other.url}/v1/withdrawals?steal=1` }, body: '' });
      const dispatcher: Dispatcher = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }));
      const err = await failure(client({ dispatcher }).member('m').withdrawals.create(WITHDRAWAL));
      expect(err).toBeInstanceOf(RedirectRefusedError);
      expect(err).toMatchObject({ locationOrigin: other.url });
      // The service answered (with a 3xx the dispatcher then tried to follow): the call was sent.
      expect((err as RedirectRefusedError).call).toMatchObject({ sent: 'yes' });
      expect((err as Error).message).not.toContain('steal');
      expect(other.requests).toHaveLength(0);
      expect(withdrawals()).toHaveLength(1);
      await (dispatcher as Agent).close();
    });
  }

  it('a fetch that follows redirects anyway: the other host answer is never returned', async () => {
    server.on('POST', '/v1/withdrawals', { status: 307, headers: { location: `${other.url}/v1/withdrawals` }, body: '' });
    // Node's fetch can re-send only a body it can read twice (a string), on a 307.
    const following = (url: string, init: RequestInit): Promise<Response> =>
      fetch(url, { ...init, body: init.body ? Buffer.from(init.body as Uint8Array).toString('utf8') : null, redirect: 'follow' });
    const err = await failure(client({ fetch: following }).member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(RedirectRefusedError);
    expect((err as RedirectRefusedError).locationOrigin).toBe(other.url);
  });

  it('the default fetch transport refuses a redirect with its status and origin', async () => {
    server.on('GET', '/v1/assets', { status: 301, headers: { location: `${other.url}/x` }, body: '' });
    const err = await failure(client({ transport: 'fetch' }).assets.list());
    expect(err).toMatchObject({ name: 'RedirectRefusedError', status: 301, locationOrigin: other.url });
    expect(other.requests).toHaveLength(0);
  });
});

describe('6. one deadline per attempt, covering the wait for a socket; an abort ends a queued call at once', () => {
  it('a call queued behind a full pool times out, and an aborted one ends, while the pool is still held', async () => {
    let release: (() => void) | undefined;
    const agent = new Agent({ connections: 1, pipelining: 1 });
    const c = client({ dispatcher: agent, maxRetries: 0 });
    const page = { body: { data: [], next_cursor: null, has_more: false } };
    server.on('GET', '/v1/assets', page);
    await c.assets.list(); // warm: the token, and the one connection
    server.on('GET', '/v1/assets', (_req, n) => (n === 0 ? new Promise<Reply>((r) => (release = () => r(page))) : page));
    const holding = c.assets.list().then(() => undefined); // a list starts when awaited
    await until(() => release !== undefined);
    const queued = await failure(c.assets.list({}, { timeoutMs: 200 }));
    expect(queued).toBeInstanceOf(TimeoutError);
    expect((queued as TimeoutError).call).toMatchObject({ sent: 'no', attempts: 1 });
    const controller = new AbortController();
    const aborted = failure(c.assets.list({}, { signal: controller.signal }));
    controller.abort();
    expect(await aborted).toBeInstanceOf(AbortError);
    // Both settled while the first request still held the only connection.
    expect(server.calls().filter((r) => r.url === '/v1/assets')).toHaveLength(2);
    release!();
    await holding;
    await agent.close();
  });

  it('a TCP connect that never completes ends at timeoutMs, and nothing counts as sent', async () => {
    const agent = new Agent({ connect: () => undefined });
    // A token already in the store: the withdrawal itself is what cannot connect.
    const fresh = { token: 'tok_stored', expiresAt: Math.floor(Date.now() / 1000) + 1800 };
    const c = client({
      dispatcher: agent,
      timeoutMs: 150,
      maxRetries: 1,
      tokenStore: { get: () => fresh, set: () => {}, delete: () => {} },
    });
    const err = await failure(c.member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(TimeoutError);
    // Both attempts were handed to the transport; neither left the client, so the retry was safe.
    expect((err as TimeoutError).call).toMatchObject({ sent: 'no', attempts: 2 });
    await agent.destroy();
  });
});

describe('7. token renewal cannot storm', () => {
  it('every attempt of the exchange counts against 20 a minute: the 21st waits, however many renewals made them', async () => {
    server.onToken(apiError(502, 'upstream_error'));
    const c = client({ maxRetries: 2 });
    // Six calls, three exchange attempts each: 18 attempts.
    for (let i = 0; i < 6; i++) expect(await failure(c.assets.list())).toMatchObject({ code: 'upstream_error' });
    expect(server.tokenExchanges()).toBe(18);
    // The seventh gets two attempts through, and its third waits for the window.
    const controller = new AbortController();
    const seventh = failure(c.assets.list({}, { signal: controller.signal }));
    await until(() => server.tokenExchanges() === 20);
    await settleIo();
    expect(server.tokenExchanges()).toBe(20);
    controller.abort();
    expect(await seventh).toBeInstanceOf(AbortError);
    expect(server.tokenExchanges()).toBe(20);
  });
});

describe('8. a clock offset is adopted only within its bound', () => {
  it('a Date 10 years off on timestamp_out_of_range is not adopted: ClockSkewError says what was seen', async () => {
    const date = new Date(Date.now() + 10 * 365 * 86_400_000).toUTCString();
    server.on('POST', '/v1/withdrawals', { ...apiError(401, 'timestamp_out_of_range'), headers: { date } });
    const c = client();
    const err = await failure(c.member('m').withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(ClockSkewError);
    expect((err as ClockSkewError).offsetMs).toBeGreaterThan(9 * 365 * 86_400_000);
    expect((err as ClockSkewError).maxOffsetMs).toBe(3_600_000);
    expect(err).toMatchObject({ call: { sent: 'yes', status: 401 } });
    expect(c.clockOffsetMs).toBe(0);
    // Later calls still sign with the local clock.
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    // The local clock read around the call brackets the signed timestamp, at any machine speed.
    const before = Math.floor(Date.now() / 1000);
    await c.member('m').withdrawals.create(WITHDRAWAL);
    const after = Math.ceil(Date.now() / 1000);
    const ts = Number(server.calls().at(-1)!.headers['x-timestamp']);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
  });

  it('the bound is configurable; an offset within it is adopted and signs the retry', async () => {
    const date = new Date(Date.now() + 2 * 3_600_000).toUTCString();
    server.on('POST', '/v1/withdrawals', [
      { ...apiError(401, 'timestamp_out_of_range'), headers: { date } },
      { status: 201, body: ORDER },
    ]);
    const c = client({ maxClockSkewMs: 3 * 3_600_000 });
    await c.member('m').withdrawals.create(WITHDRAWAL);
    expect(Math.round(c.clockOffsetMs / 3_600_000)).toBe(2);
  });
});

describe('9. retryClass is what the retry loop applied; card activation retries what cannot count toward the lock', () => {
  it('a 404 is never, whatever its code', async () => {
    server.on('GET', '/v1/remittances/rmt_1', apiError(404, 'brand_new_404'));
    expect(await failure(client().member('m').remittances.retrieve('rmt_1'))).toMatchObject({ retryClass: 'never', attempts: 1 });
  });

  for (const [id, label, call] of [
    ['activate', 'card activation', (c: MerchantClient) => c.member('m').cards.activate('crd_1', { expiry: '07/29', pin: '1234' })],
    ['cancel', 'remittance cancel', (c: MerchantClient) => c.member('m').remittances.cancel('rmt_1')],
    ['unfreeze', 'card unfreeze', (c: MerchantClient) => c.member('m').cards.unfreeze('crd_1')],
    ['limits', 'card limits', (c: MerchantClient) => c.member('m').cards.updateLimits('crd_1', { single: '10' })],
  ] as const) {
    it(`${label}: a 500 api_error is never (sent once), as the loop treats it`, async () => {
      for (const [method, path] of [
        ['POST', '/v1/cards/crd_1/activate'],
        ['POST', '/v1/remittances/rmt_1/cancel'],
        ['POST', '/v1/cards/crd_1/unfreeze'],
        ['PATCH', '/v1/cards/crd_1/limits'],
      ] as const)
        server.on(method, path, apiError(500, 'api_error'));
      const err = await failure(call(client()));
      expect(err, id).toMatchObject({ code: 'api_error', retryClass: 'never' });
      expect(server.calls()).toHaveLength(1);
    });
  }

  it('a withdrawal 500 is same_key, and was retried with the same key', async () => {
    server.on('POST', '/v1/withdrawals', apiError(500, 'api_error'));
    expect(await failure(client().member('m').withdrawals.create(WITHDRAWAL))).toMatchObject({ retryClass: 'same_key', attempts: 3 });
    expect(new Set(withdrawals()).size).toBe(1);
  });

  it('card activation does not resend a request reset after it was sent: the outcome is unknown, the key kept', async () => {
    server.on('POST', '/v1/cards/crd_1/activate', [{ reset: true }, { body: { id: 'crd_1', status: 'active' } }]);
    const err = await failure(client().member('m').cards.activate('crd_1', { expiry: '07/29', pin: '1234' }));
    const calls = server.calls();
    expect(calls).toHaveLength(1);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ idempotencyKey: calls[0]!.headers['x-idempotency-key'], call: { sent: 'maybe', attempts: 1 } });
    expect((err as OutcomeUnknownError).cause).toBeInstanceOf(ConnectionError);
  });

  it('an ApiError says whether it was a replay of an earlier failure', async () => {
    server.on('POST', '/v1/withdrawals', [
      { ...apiError(400, 'insufficient_balance'), headers: { 'x-idempotent-replay': 'true' } },
      apiError(400, 'insufficient_balance'),
    ]);
    const c = client();
    expect(await failure(c.member('m').withdrawals.create(WITHDRAWAL))).toMatchObject({ replayed: true, retryClass: 'new_key' });
    expect(await failure(c.member('m').withdrawals.create(WITHDRAWAL))).toMatchObject({ replayed: false });
  });
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function token(name: string): Record<string, unknown> {
  return { auth_token: name, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

interface RawServer {
  readonly url: string;
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

/** A loopback server answering with `handle` (after reading the request body). */
async function rawServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<RawServer> {
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const s: Server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on('end', () => handle(req, res));
  });
  s.on('connection', (sock: Socket) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((r) => s.close(() => r()));
    },
  };
}

function rawClient(raw: RawServer, options: Partial<MerchantClientOptions> = {}): MerchantClient {
  const c = wireClient(raw.url, options);
  clients.push(c);
  return c;
}

/** Waits for a condition the test itself brings about (no deadline of its own: the test timeout is the hang guard). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

/** Lets pending socket I/O and timers of zero delay run. */
async function settleIo(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
