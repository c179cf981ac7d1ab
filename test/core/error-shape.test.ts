/**
 * The shape of the errors a caller catches, where logs and frameworks read them: the advice note
 * of a failed write is in `message` and in the first line of `stack` (what `console.error`
 * prints), both behave like a plain `Error`'s, an error that counts no attempts gets none, bodies
 * stay out of `util.inspect`, and the public classes can be built by a caller's own test doubles.
 * Pagination errors say which list stopped and why. Produced through the client on the wire.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  ConnectionError,
  MalformedResponseError,
  MerchantSdkError,
  PaginationRestartError,
  PaginationStalledError,
  ResponseValidationError,
  TimeoutError,
  type MerchantClient,
  type ResponseMeta,
} from '../../src/index.js';
import { PageIterator } from '../../src/core/lists/pagination.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

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
const withdraw = (options = {}) =>
  client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: KEY, ...options });
/** The descriptor flags of an own property. */
const flags = (o: object, name: string) => {
  const { enumerable, writable, configurable } = Object.getOwnPropertyDescriptor(o, name)!;
  return { enumerable, writable, configurable };
};
const PLAIN = { enumerable: false, writable: true, configurable: true };

describe('a failed write carries its advice where it is printed', () => {
  it('a reset write: the note is in message and in the first line of stack, which behave like a plain Error', async () => {
    server.on('POST', '/v1/withdrawals', { reset: true });
    const err = await failure(withdraw());
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(new RegExp(`\\(the call may have executed: retry with idempotency key ${KEY}\\)$`));
    expect(err.stack!.split('\n')[0]).toBe(`ConnectionError: ${err.message}`);
    expect(flags(err, 'message')).toEqual(PLAIN);
    expect(flags(err, 'stack')).toEqual(PLAIN);
    expect(flags(new Error('x'), 'message')).toEqual(PLAIN);
    // A framework that prefixes messages (as test runners do) can.
    err.message = `[ctx] ${err.message}`;
    expect(err.message.startsWith('[ctx] ')).toBe(true);
    // The attempts of the call, and its state, are on the error as fields.
    expect((err as ConnectionError).attempts).toBe(1);
    expect(Object.keys(err)).toEqual(expect.arrayContaining(['call', 'idempotencyKey', 'attempts']));
    expect(Object.keys(err)).not.toContain('message');
  });

  it('an aborted write has its note too, and no attempts field: an abort counts none', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await failure(withdraw({ signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe('The call was aborted by its AbortSignal. (nothing reached the service: calling again is safe)');
    expect(err.stack!.split('\n')[0]).toBe(`AbortError: ${err.message}`);
    expect(Object.hasOwn(err, 'attempts')).toBe(false);
    expect((err as AbortError).call).toMatchObject({ sent: 'no', attempts: 0, idempotencyKey: KEY });
  });

  it('the body of an accepted but unreadable answer stays out of inspect and keys, and is still readable', async () => {
    server.on('POST', '/v1/withdrawals', { body: 'accepted-body-text' });
    const err = await failure(withdraw());
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    const accepted = err as AcceptedButUnreadableError;
    expect(accepted.body).toBe('accepted-body-text');
    expect(accepted.idempotencyKey).toBe(KEY);
    expect(Object.keys(err)).not.toContain('body');
    expect(Object.keys(err)).not.toContain('parsed');
    expect(inspect(err)).not.toContain('accepted-body-text');
  });
});

describe('an accepted answer of the wrong shape says what is wrong, briefly', () => {
  it('the message names the first three issues by path, "(root)" for the body itself; issues keeps them all', async () => {
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: { id: 1, status: 2, asset: 3, amount: 4, ledger_scale: 'x', to_address: 6 },
    });
    const err = (await failure(withdraw())) as ResponseValidationError;
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.issues.length).toBeGreaterThan(3);
    const summary = err.message.slice(err.message.indexOf('documented shape: ') + 'documented shape: '.length);
    const parts = summary.split('; ');
    expect(parts).toHaveLength(3);
    expect(parts.map((part) => part.slice(0, part.indexOf(':')))).toEqual(err.issues.slice(0, 3).map((i) => i.path.join('.')));
    server.on('POST', '/v1/withdrawals', { status: 201, body: [1, 2] });
    const root = (await failure(withdraw())) as ResponseValidationError;
    expect(root.message).toMatch(/documented shape: \(root\): /);
    expect(root.parsed).toEqual([1, 2]);
  });
});

describe("a caller's own test doubles", () => {
  it('the public error classes can be built without options', () => {
    expect(new MerchantSdkError('m').name).toBe('MerchantSdkError');
    const abort = new AbortError('k');
    expect([abort.name, abort.idempotencyKey, abort.cause]).toEqual(['AbortError', 'k', undefined]);
    const conn = new ConnectionError('down', 'k', 2);
    expect([conn.message, conn.idempotencyKey, conn.attempts, conn.cause]).toEqual(['down', 'k', 2, undefined]);
    const timeout = new TimeoutError('slow', undefined, 3, { cause: 'c' });
    expect([timeout.name, timeout.attempts, timeout.cause]).toEqual(['TimeoutError', 3, 'c']);
    const malformed = new MalformedResponseError('html', { status: 502, requestId: 'r', snippet: '<h', idempotencyKey: 'k' });
    expect([malformed.status, malformed.requestId, malformed.snippet, malformed.idempotencyKey]).toEqual([502, 'r', '<h', 'k']);
  });
});

describe('pagination errors name the list and the reason', () => {
  const meta: ResponseMeta = { requestId: undefined, status: 200, headers: {}, idempotencyKey: undefined, replayed: false, attempts: 1 };
  type Item = { id: string };
  const page = (ids: string[], next: string | null, hasMore = next !== null) => ({
    data: ids.map((id) => ({ id })),
    next_cursor: next,
    has_more: hasMore,
  });
  const walk = (pages: Record<string, ReturnType<typeof page>>) =>
    failure(new PageIterator<Item>(async (cursor) => ({ data: pages[cursor ?? 'first']!, response: meta })).collect(100));

  it('without an endpoint, the messages say "The list"', async () => {
    const restart = await walk({ first: page(['a'], 'c1'), c1: page(['a'], null) });
    expect(restart).toBeInstanceOf(PaginationRestartError);
    expect(restart.message).toMatch(/^The list restarted from its first page/);
    const stall = await walk({ first: page(['a'], null, true) });
    expect(stall).toBeInstanceOf(PaginationStalledError);
    expect(stall.message).toBe(
      'The list makes no progress: it reported has_more: true without a next_cursor; stopping instead of looping.',
    );
  });

  it('a repeated cursor and empty pages, on a client list, each say so', async () => {
    server.on('GET', '/v1/assets', (req) =>
      req.url.includes('cursor=c2') ? { body: page(['c'], 'c1') } : { body: page(req.url.includes('cursor') ? ['b'] : ['a'], 'c2') },
    );
    const repeated = await failure(client.assets.list().collect(100));
    expect(repeated).toBeInstanceOf(PaginationStalledError);
    expect((repeated as PaginationStalledError).reason).toBe('repeated_cursor');
    expect(repeated.message).toBe(
      'The list GET /v1/assets makes no progress: it answered a next_cursor that this iteration already followed; stopping instead of looping.',
    );
    // Each empty page well inside the deadline (even on a loaded machine), their run past it.
    server.on('GET', '/v1/assets', (_req, n) => ({ delayMs: 20, body: page([], `e${n}`) }));
    const empty = await failure(client.assets.list(undefined, { timeoutMs: 1_000, maxRetries: 0 }).collect(1_000));
    expect((empty as PaginationStalledError).reason).toBe('empty_pages');
    expect(empty.message).toBe(
      "The list GET /v1/assets makes no progress: it answered has_more: true with no items for longer than the list call's deadline (timeoutMs × (maxRetries + 1)); stopping instead of looping.",
    );
  });
});
