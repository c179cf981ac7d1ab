/**
 * Issue 15, cases 1 and 2: every cursor list, not only reports, refuses a silent restart (an
 * expired cursor returns the first page) and a list that makes no progress, against a hostile
 * loopback server. Each iteration either yields every item once or raises a typed error naming
 * the endpoint before any duplicate.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PaginationRestartError, PaginationStalledError, type MerchantClient } from '../../src/index.js';
import { ListProgress, itemId } from '../../src/core/lists/list-progress.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type RecordedRequest, type Reply, type WireServer } from '../helpers/wire-server.js';

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

const cursorOf = (req: RecordedRequest): string => new URL(req.url, 'http://x').searchParams.get('cursor') ?? '';

/**
 * A hostile list: it answers from `pages` by cursor, and after `cap` requests it answers 500, so
 * that an iterator that never stops ends with that error instead of running for ever.
 */
function hostile(method: string, path: string, pages: (cursor: string, n: number) => unknown, cap = 40): void {
  server.on(method, path, (req, n): Reply => (n >= cap ? apiError(500, 'api_error') : { body: pages(cursorOf(req), n) }));
}

/** Iterates with for-await, returning what was yielded and what was thrown. */
async function drain<T>(list: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of list) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

const order = (i: number) => ({ id: `rmt_${i}`, status: 'processing' });
const ids = (items: readonly unknown[]): string[] => items.map((i) => (i as { id: string }).id);

describe('case 1: a silent restart of any cursor list is detected by identity', () => {
  it('member.remittances.list(): the expired cursor c2 answers the first page again; no order is yielded twice', async () => {
    hostile('GET', '/v1/remittances', (cursor) => {
      if (cursor === '') return { data: [order(1), order(2)], next_cursor: 'c1', has_more: true };
      if (cursor === 'c1') return { data: [order(3), order(4)], next_cursor: 'c2', has_more: true };
      return { data: [order(1), order(2)], next_cursor: 'c1', has_more: true }; // c2 expired: first page
    });
    const { items, error } = await drain(client.member('m_1').remittances.list());
    expect(error).toBeInstanceOf(PaginationRestartError);
    expect(error).toMatchObject({ cursor: 'c2', endpoint: 'GET /v1/remittances' });
    expect((error as Error).message).toContain('GET /v1/remittances');
    expect(ids(items)).toEqual(['rmt_1', 'rmt_2', 'rmt_3', 'rmt_4']);
    expect(server.calls().map((c) => cursorOf(c))).toEqual(['', 'c1', 'c2']);
  });

  it('a restarted first page that gained new items on top is still recognised by an item it shares', async () => {
    hostile('GET', '/v1/merchant/topups', (cursor) => {
      if (cursor === '') return { data: [order(9), order(8)], next_cursor: 'c1', has_more: true };
      if (cursor === 'c1') return { data: [order(7), order(6)], next_cursor: 'c2', has_more: true };
      if (cursor === 'c2') return { data: [order(5), order(4)], next_cursor: 'c3', has_more: true };
      return { data: [order(10), order(9)], next_cursor: 'c1', has_more: true }; // c3 expired, one new item since
    });
    const { items, error } = await drain(client.merchant.topups.list());
    expect(error).toBeInstanceOf(PaginationRestartError);
    expect(error).toMatchObject({ cursor: 'c3', endpoint: 'GET /v1/merchant/topups' });
    expect(ids(items)).toEqual(['rmt_9', 'rmt_8', 'rmt_7', 'rmt_6', 'rmt_5', 'rmt_4']);
  });

  it('pages(), collect() and the other name-only lists raise it too', async () => {
    const restart = (cursor: string) =>
      cursor === '' ? { data: [order(1)], next_cursor: 'x', has_more: true } : { data: [order(1)], next_cursor: 'y', has_more: true };
    hostile('GET', '/v1/withdraw-addresses', restart);
    hostile('GET', '/v1/assets', restart);
    hostile('GET', '/v1/cards/products', restart);
    await expect(client.member('m_1').withdrawals.addresses().collect(10)).rejects.toMatchObject({
      name: 'PaginationRestartError',
      endpoint: 'GET /v1/withdraw-addresses',
    });
    await expect(drain(client.assets.list().pages())).resolves.toMatchObject({ error: { endpoint: 'GET /v1/assets' } });
    await expect(client.member('m_1').cards.products().collect(10)).rejects.toBeInstanceOf(PaginationRestartError);
  });

  it('a list whose items repeat nothing is walked to its end, items without an id included', async () => {
    hostile('GET', '/v1/merchant/balances', (cursor) =>
      cursor === ''
        ? { data: [{ asset: 'USDT' }, { asset: 'USDC' }], next_cursor: 'p2', has_more: true }
        : { data: [{ asset: 'USDT' }, order(1)], next_cursor: null, has_more: false },
    );
    const { items, error } = await drain(client.merchant.balances());
    expect(error).toBeUndefined();
    expect(items).toEqual([{ asset: 'USDT' }, { asset: 'USDC' }, { asset: 'USDT' }, order(1)]);
  });

  it('reports keep their order check: a restart with ids never seen before is still caught', async () => {
    const report = (id: string, created_at: string) => ({
      id,
      kind: 'statements',
      status: 'ready',
      rows: 1,
      bytes: 1,
      error: '',
      expires_at: '2026-12-01T00:00:00Z',
      created_at,
    });
    hostile('GET', '/v1/reports', (cursor) =>
      cursor === ''
        ? { data: [report('rep_b', '2026-01-02T00:00:00Z')], next_cursor: 'c1', has_more: true }
        : { data: [report('rep_z', '2026-01-03T00:00:00Z')], next_cursor: null, has_more: false },
    );
    const { error } = await drain(client.reports.list());
    expect(error).toMatchObject({ name: 'PaginationRestartError', endpoint: 'GET /v1/reports', cursor: 'c1' });
  });
});

describe('case 2: a list that makes no progress raises a typed error naming the endpoint', () => {
  it('data: [], has_more: true with the same cursor for ever: for-await stops after one repeat', async () => {
    hostile('GET', '/v1/remittances', () => ({ data: [], next_cursor: 'same', has_more: true }));
    const { items, error } = await drain(client.member('m_1').remittances.list());
    expect(error).toBeInstanceOf(PaginationStalledError);
    expect(error).toMatchObject({ reason: 'repeated_cursor', endpoint: 'GET /v1/remittances', cursor: 'same' });
    expect((error as Error).message).toContain('GET /v1/remittances');
    expect(items).toEqual([]);
    expect(server.calls()).toHaveLength(2);
  });

  it('collect() on the reports list with the same cursor answered again (items included) stops too', async () => {
    let n = 0;
    hostile('GET', '/v1/reports', () => ({
      data: [
        {
          id: `rep_${1000 - n}`,
          kind: 'statements',
          status: 'ready',
          rows: 0,
          bytes: 0,
          error: '',
          expires_at: '',
          created_at: new Date(Date.UTC(2026, 0, 1) - n++ * 1000).toISOString(),
        },
      ],
      next_cursor: 'stuck',
      has_more: true,
    }));
    await expect(client.reports.list().collect(1000)).rejects.toMatchObject({ name: 'PaginationStalledError', reason: 'repeated_cursor' });
    expect(server.calls()).toHaveLength(2);
  });

  it('empty pages with has_more: true and ever new cursors are followed: has_more alone marks the end', async () => {
    hostile('GET', '/v1/merchant/conversion-pairs', (_cursor, n) =>
      n < 10 ? { data: [], next_cursor: `c${n + 1}`, has_more: true } : { data: [{ id: 'USDT-USDC' }], next_cursor: null, has_more: false },
    );
    await expect(client.merchant.conversionPairs().collect(10)).resolves.toEqual([{ id: 'USDT-USDC' }]);
    expect(server.calls().map((c) => cursorOf(c))).toEqual(['', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']);
  });

  it("an endless run of empty pages stalls once the list call's own deadline has passed (timeoutMs × (maxRetries + 1))", async () => {
    // Each empty page takes 50 ms; the list call may last 300 ms × (0 + 1): no page count, only time.
    server.on('GET', '/v1/merchant/conversion-pairs', (_req, n): Reply =>
      n >= 40 ? apiError(500, 'api_error') : { delayMs: 50, body: { data: [], next_cursor: `c${n + 1}`, has_more: true } },
    );
    const started = performance.now();
    await expect(client.merchant.conversionPairs(undefined, { timeoutMs: 300, maxRetries: 0 }).collect(10)).rejects.toMatchObject({
      name: 'PaginationStalledError',
      reason: 'empty_pages',
      endpoint: 'GET /v1/merchant/conversion-pairs',
    });
    expect(performance.now() - started).toBeGreaterThan(300);
    // Time, not a count, ends it: more than one page (at least 50 ms each, so at most 6 in 300 ms
    // on an idle machine, fewer on a loaded one), and well before the 40 the server allows.
    expect(server.calls().length).toBeGreaterThanOrEqual(2);
    expect(server.calls().length).toBeLessThan(40);
  });

  it('a cycle between two cursors (items without ids) is caught, and has_more without a cursor is a stall', async () => {
    hostile('GET', '/v1/qrpay/schemes', (cursor) =>
      cursor === 'a' ? { data: ['EMV'], next_cursor: 'b', has_more: true } : { data: ['SGQR'], next_cursor: 'a', has_more: true },
    );
    await expect(client.member('m_1').qrpay.schemes().collect(10)).rejects.toMatchObject({ reason: 'repeated_cursor' });
    hostile('GET', '/v1/merchant/lines', () => ({ data: [{ line: 'withdraw' }], has_more: true }));
    await expect(drain(client.merchant.lines())).resolves.toMatchObject({
      items: [{ line: 'withdraw' }],
      error: { name: 'PaginationStalledError', reason: 'missing_cursor', endpoint: 'GET /v1/merchant/lines' },
    });
  });

  it('one empty page with has_more: true is not a stall: the next page is read', async () => {
    hostile('GET', '/v1/assets', (cursor) =>
      cursor === '' ? { data: [], next_cursor: 'p2', has_more: true } : { data: [{ id: 'USDT' }], next_cursor: null, has_more: false },
    );
    await expect(client.assets.list().collect(10)).resolves.toEqual([{ id: 'USDT' }]);
  });
});

describe('the stall budget of empty pages is time, not a page count', () => {
  const empty = (cursor: string) => ({ data: [] as Array<{ id: string }>, next_cursor: cursor, has_more: true });

  it('empty has_more pages pass up to the budget since the last page with items, and stall just after it', () => {
    let now = 0;
    const progress = new ListProgress<{ id: string }>({ identity: itemId, stallBudgetMs: 1000, now: () => now });
    progress.accept({ data: [{ id: 'a' }], next_cursor: 'c0', has_more: true }, undefined);
    for (let i = 1; i <= 100; i++) {
      now = i * 10; // 100 empty pages within 1000 ms: no stall, whatever their number
      progress.accept(empty(`c${i}`), progress.nextCursor(empty(`c${i}`), `c${i - 1}`));
    }
    // A page with items is progress: the budget starts again from it.
    now = 1000;
    progress.accept({ data: [{ id: 'b' }], next_cursor: 'd0', has_more: true }, 'c100');
    now = 2000;
    progress.accept(empty('d1'), 'd0');
    now = 2001;
    expect(() => progress.accept(empty('d2'), 'd1')).toThrow(PaginationStalledError);
    // An empty last page (has_more: false) ends the list, never a stall.
    expect(() => progress.accept({ data: [], next_cursor: null, has_more: false }, 'd1')).not.toThrow();
  });

  it('a cursor already followed is still a stall at once, whatever the time', () => {
    const progress = new ListProgress<{ id: string }>({ identity: itemId, stallBudgetMs: 1_000_000, now: () => 0 });
    expect(progress.nextCursor(empty('c1'), undefined)).toBe('c1');
    expect(progress.nextCursor(empty('c2'), 'c1')).toBe('c2');
    expect(() => progress.nextCursor(empty('c1'), 'c2')).toThrow(expect.objectContaining({ reason: 'repeated_cursor' }));
  });
});
