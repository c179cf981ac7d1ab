/**
 * Responses: valid bodies with random extra fields and unknown enum values always parse, and
 * hostile ones (random bytes, truncated JSON, wrong content types, bodies over the size cap,
 * connections cut mid-body) never crash or hang the client: every call settles, with a typed
 * error when it fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcceptedButUnreadableError,
  ApiError,
  ConnectionError,
  MalformedResponseError,
  MerchantSdkError,
  RedirectRefusedError,
  TimeoutError,
  type MerchantClient,
} from '../../src/index.js';
import * as S from '../../src/schemas/index.js';
import { wireClient } from '../helpers/client.js';
import * as F from '../schemas/fixtures.js';
import { tryParseJson } from '../../src/core/attempts/response.js';
import { runs } from './runs.js';

type Json = Record<string, unknown>;
interface Shape {
  readonly name: string;
  readonly schema: { safeParse(v: unknown): { success: boolean; data?: unknown } };
  readonly sample: Json;
  /** Paths of open-enum fields, where any string must be accepted and kept. */
  readonly enums: ReadonlyArray<readonly string[]>;
}

const SHAPES: Shape[] = [
  { name: 'withdrawal order', schema: S.withdrawalOrderSchema, sample: F.withdrawalOrder, enums: [['status']] },
  {
    name: 'balances envelope',
    schema: S.balancesEnvelopeSchema,
    sample: { data: [F.balanceRow], next_cursor: null, has_more: false, balances: [F.balanceRow] },
    enums: [],
  },
  { name: 'QR quote', schema: S.qrQuoteSchema, sample: F.qrQuote, enums: [] },
  { name: 'KYC application', schema: S.kycApplicationSchema, sample: F.kycApplication, enums: [['status']] },
  { name: 'top-up', schema: S.topupDeclarationSchema, sample: F.topup, enums: [['channel'], ['status']] },
  { name: 'export report', schema: S.exportReportSchema, sample: F.report, enums: [['kind'], ['status'], ['error']] },
  {
    name: 'report page',
    schema: S.exportReportPageSchema,
    sample: { data: [F.report], next_cursor: 'c', has_more: true },
    enums: [['data', '0', 'status']],
  },
  { name: 'close precheck', schema: S.cardCloseCheckSchema, sample: F.closeCheck, enums: [['closePhase']] },
  {
    name: 'pending action (slippage)',
    schema: S.pendingActionResultSchema,
    sample: { id: 'rmt_1', waiting_on: 'member', action: F.slippage },
    enums: [['waiting_on'], ['action', 'reject_reason']],
  },
  {
    name: 'pending action (supplement)',
    schema: S.pendingActionResultSchema,
    sample: { id: 'rmt_1', waiting_on: 'member', action: F.supplement },
    enums: [['waiting_on'], ['action', 'status']],
  },
  {
    name: 'personal account',
    schema: S.personalAccountApplicationSchema,
    sample: { id: 'vpa_1', status: 'reviewing' },
    enums: [['status']],
  },
  { name: 'token', schema: S.tokenSchema, sample: F.token, enums: [['token_type']] },
];

const key = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'then'),
);
const extras = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });

/** Adds `extra` fields that the sample does not have, at the top and in every nested object. */
function withExtras(value: unknown, extra: Json): unknown {
  if (Array.isArray(value)) return value.map((v) => withExtras(v, extra));
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, { value: withExtras(v, extra), enumerable: true, writable: true, configurable: true });
  for (const [k, v] of Object.entries(extra))
    if (!Object.prototype.hasOwnProperty.call(value, k))
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

function setPath(obj: Json, path: readonly string[], v: string): void {
  let cur: Json = obj;
  for (const p of path.slice(0, -1)) cur = cur[p] as Json;
  cur[path[path.length - 1]!] = v;
}

describe('responses (property)', () => {
  it('a `__proto__` member, plain or escaped, never becomes the prototype of a parsed body', () => {
    for (const text of ['{"id":"wdr_1","__proto__":{"polluted":true}}', '{"id":"wdr_1","\\u005f_proto__":{"polluted":true}}']) {
      const body = tryParseJson(text) as Json;
      expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      expect(body.polluted).toBeUndefined();
      expect(Object.keys(body)).toEqual(['id']);
      const parsed = S.withdrawalOrderSchema.safeParse({ ...F.withdrawalOrder, ...body });
      expect((parsed.data as Json | undefined)?.polluted).toBeUndefined();
    }
  });

  it('valid shapes with random extra fields (any key) and unknown enum values always parse, unchanged', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAPES),
        extras,
        fc.array(fc.string({ maxLength: 20 }), { minLength: 3, maxLength: 3 }),
        (shape, extra, enumValues) => {
          // The body travels as JSON text, as from the service: parse it the way the client does.
          const text = JSON.stringify(withExtras(shape.sample, extra));
          const body = tryParseJson(text) as Json;
          shape.enums.forEach((path, i) => setPath(body, path, enumValues[i % enumValues.length]!));
          const expected = JSON.parse(JSON.stringify(body)) as unknown;
          const result = shape.schema.safeParse(body);
          expect(result.success).toBe(true);
          // Every field kept, with the same value, extra and unknown ones included.
          expect(JSON.parse(JSON.stringify(result.data))).toEqual(expected);
          expect(Object.getPrototypeOf(result.data)).toBe(Object.prototype);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('a pending action of any unknown kind, with any fields, parses and keeps them', () => {
    fc.assert(
      fc.property(
        fc.string().filter((k) => k !== 'slippage' && k !== 'supplement'),
        extras,
        (kind, extra) => {
          const body = tryParseJson(
            JSON.stringify({ id: 'rmt_1', waiting_on: 'member', action: { ...(withExtras({}, extra) as Json), kind } }),
          ) as Json;
          const result = S.pendingActionResultSchema.safeParse(body);
          expect(result.success).toBe(true);
          expect(JSON.parse(JSON.stringify(result.data))).toEqual(body);
          expect(S.isUnknownAction((result.data as { action: S.PendingAction }).action)).toBe(true);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});

/** What the hostile server answers next. */
interface Hostile {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  /** Send a content-length (else chunked). */
  readonly withLength: boolean;
  /** Cut the connection after this many body bytes (a truncated transfer). */
  readonly cutAfter: number | undefined;
  /** Send the headers and part of the body, then stall forever. */
  readonly stall: boolean;
}

const CAP = 4096;
const sampleJson = JSON.stringify(F.withdrawalOrder);
const errorJson = JSON.stringify({ type: 'api_error', code: 'api_error', message: 'x', request_id: 'r' });

const hostileBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.nat({ max: sampleJson.length - 1 }).map((n) => Buffer.from(sampleJson.slice(0, n))),
  fc.nat({ max: errorJson.length - 1 }).map((n) => Buffer.from(errorJson.slice(0, n))),
  fc.constantFrom(
    Buffer.from('<html><body>502 Bad Gateway</body></html>'),
    Buffer.from('null'),
    Buffer.from('[]'),
    Buffer.from('"str"'),
    Buffer.from('{}'),
    Buffer.from('{"code":42}'),
    Buffer.from(sampleJson),
    Buffer.from(errorJson),
  ),
  fc.integer({ min: CAP + 1, max: CAP * 8 }).map((n) => Buffer.from(`{"pad":"${'x'.repeat(n)}"}`)),
);

const hostile: fc.Arbitrary<Hostile> = fc.record({
  status: fc.constantFrom(200, 201, 204, 400, 401, 404, 409, 429, 500, 502, 503, 504),
  contentType: fc.constantFrom(
    undefined,
    'application/json',
    'text/html',
    'text/plain; charset=utf-8',
    'application/octet-stream',
    'application/json; charset=latin1',
  ),
  body: hostileBody,
  withLength: fc.boolean(),
  cutAfter: fc.option(fc.nat({ max: 200 }), { nil: undefined, freq: 5 }),
  // One case in ten stalls; drawn by fast-check, so a failure replays from its seed.
  stall: fc.nat({ max: 9 }).map((n) => n === 0),
});

let server: Server;
let url: string;
let next: Hostile;
const sockets = new Set<Socket>();
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/connect/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ auth_token: 'tok', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }));
        return;
      }
      const h = next;
      const headers: Record<string, string> = {};
      if (h.contentType !== undefined) headers['content-type'] = h.contentType;
      if (h.withLength) headers['content-length'] = String(h.body.length);
      const noBody = h.status === 204;
      // A stalled response never ends on this side, even when its first bytes complete the body
      // the client was told to expect: the connection must not serve the next case.
      if (h.stall && !noBody) headers['connection'] = 'close';
      res.writeHead(h.status, noBody ? {} : headers);
      if (noBody) return void res.end();
      if (h.stall) return void res.write(h.body.subarray(0, Math.min(5, h.body.length)));
      if (h.cutAfter !== undefined && h.cutAfter < h.body.length) {
        res.write(h.body.subarray(0, h.cutAfter), () => res.socket?.destroy());
        return;
      }
      res.end(h.body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('hostile responses (property, over a loopback socket)', () => {
  it('never crash or hang the client: every call settles, failures are typed', async () => {
    const unexpected: unknown[] = [];
    const onUnexpected = (e: unknown): void => {
      unexpected.push(e);
    };
    process.on('unhandledRejection', onUnexpected);
    process.on('uncaughtException', onUnexpected);
    // A hang guard, never reached by an answer that completes, however slow the machine.
    const client: MerchantClient = wireClient(url, { maxRetries: 0, maxResponseBytes: CAP, timeoutMs: 60_000 });
    try {
      await fc.assert(
        fc.asyncProperty(hostile, fc.boolean(), async (h, write) => {
          next = h;
          // A stall that leaves the body incomplete never completes: the only way out is the
          // client's timeout, so that case alone gets a short one. Every other answer completes,
          // and gets the hang guard: a slow machine cannot turn it into a timeout.
          const neverCompletes = h.stall && !(h.withLength && h.body.length <= 5) && h.status !== 204;
          const declaredOversize = h.withLength && h.body.length > CAP && h.status !== 204;
          const options = { timeoutMs: neverCompletes && !declaredOversize ? 50 : 60_000 };
          const call = write
            ? client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, options)
            : client.member('m').balances.envelope(options);
          const outcome = await call.then(
            (v) => ({ ok: true as const, v }),
            (e: unknown) => ({ ok: false as const, e }),
          );
          if (outcome.ok) {
            // Only a 2xx with a body of the right shape can succeed.
            expect(h.status >= 200 && h.status < 300).toBe(true);
            return;
          }
          const e = outcome.e;
          expect(e).toBeInstanceOf(MerchantSdkError);
          const oversize = h.body.length > CAP && (h.cutAfter === undefined || h.cutAfter > CAP) && !h.stall && h.status !== 204;
          if (oversize && h.withLength) {
            // The declared size alone is refused, with a clear message (a 2xx says it was accepted).
            expect(e).toBeInstanceOf(h.status >= 200 && h.status < 300 ? AcceptedButUnreadableError : MalformedResponseError);
            expect((e as Error).message).toMatch(new RegExp(`exceeds ${CAP} bytes`));
          }
          // A declared size over the cap is refused from the headers, before any stall matters.
          if (h.stall && declaredOversize)
            expect(e).toBeInstanceOf(h.status >= 200 && h.status < 300 ? AcceptedButUnreadableError : MalformedResponseError);
          // A stall only hangs the body when the bytes written before it are not the whole body.
          else if (neverCompletes) expect(e).toBeInstanceOf(TimeoutError);
          // Anything else completed (or broke) well before the hang guard.
          else expect(e).not.toBeInstanceOf(TimeoutError);
          if (e instanceof ApiError) expect(h.status >= 400).toBe(true);
          expect(
            [ApiError, MalformedResponseError, AcceptedButUnreadableError, RedirectRefusedError, ConnectionError].some(
              (C) => e instanceof C,
            ),
          ).toBe(true);
          // A 2xx is never reported as a failure of the service: it was accepted.
          if (h.status >= 200 && h.status < 300 && !(e instanceof ConnectionError)) expect(e).toBeInstanceOf(AcceptedButUnreadableError);
        }),
        { numRuns: runs(80) },
      );
    } finally {
      process.off('unhandledRejection', onUnexpected);
      process.off('uncaughtException', onUnexpected);
      await client.close();
    }
    expect(unexpected).toEqual([]);
  });
});
