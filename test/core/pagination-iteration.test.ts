/**
 * Walking keyset lists (spec: Endpoints > Common rules: `has_more` marks the end, an expired
 * cursor silently returns the first page): what is fetched, in which order, and when iteration
 * stops. Lists come from the client against a loopback server; the restart check by item
 * identity, which no list of the client uses yet, is driven on the iterator itself.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  MerchantSdkError,
  PaginationRestartError,
  type MerchantClient,
  type Page,
  type ResponseMeta,
} from '../../src/index.js';
import { PageIterator } from '../../src/core/lists/pagination.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** Pages of `size` assets `a0, a1, ...` out of `total`; the cursor is the index of the next item. */
function serveAssets(total: number, size: number): void {
  server.on('GET', '/v1/assets', (req) => {
    const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
    const start = cursor === null ? 0 : Number(cursor);
    const data = Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, k) => ({ id: `a${start + k}` }));
    const more = start + size < total;
    return { body: { data, next_cursor: more ? String(start + size) : null, has_more: more } };
  });
}
const urls = () => server.calls().map((c) => c.url);
/** The `id` of a loosely typed list item (the assets list does not type its items). */
const idOf = (item: unknown): unknown => (item as { id?: unknown }).id;

describe('iterating a list', () => {
  it('fetches the first page once, however often the list is awaited', async () => {
    serveAssets(5, 2);
    const list = client.assets.list();
    const [a, b] = await Promise.all([list, list]);
    expect(a).toBe(b);
    expect(a.data.map(idOf)).toEqual(['a0', 'a1']);
    expect(urls()).toEqual(['/v1/assets']);
  });

  it('a failed first page rejects the awaiting caller', async () => {
    server.on('GET', '/v1/assets', { status: 404, body: { type: 'not_found', code: 'not_found', message: 'x', request_id: 'r' } });
    await expect(client.assets.list()).rejects.toMatchObject({ code: 'not_found' });
  });

  it('items come once each, in order, also when next() is called again before the last one settled', async () => {
    serveAssets(5, 2);
    const it = client.assets.list()[Symbol.asyncIterator]();
    const results = await Promise.all(Array.from({ length: 7 }, () => it.next()));
    expect(results.map((r) => (r.done ? 'done' : idOf(r.value)))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'done', 'done']);
    expect(urls()).toEqual(['/v1/assets', '/v1/assets?cursor=2', '/v1/assets?cursor=4']);
  });

  it('empty pages with has_more true are skipped, and a last empty page ends the walk', async () => {
    const pages: Array<Page<{ id: string }>> = [
      { data: [], next_cursor: 'c1', has_more: true },
      { data: [{ id: 'x' }], next_cursor: 'c2', has_more: true },
      { data: [], next_cursor: null, has_more: false },
    ];
    server.on('GET', '/v1/assets', (_req, n) => ({ body: pages[n] }));
    const ids: string[] = [];
    for await (const item of client.assets.list()) ids.push(String(idOf(item)));
    expect(ids).toEqual(['x']);
    expect(urls()).toEqual(['/v1/assets', '/v1/assets?cursor=c1', '/v1/assets?cursor=c2']);
  });

  it('breaking out fetches nothing more, and the iterator then reports done', async () => {
    serveAssets(10, 2);
    const it = client.assets.list()[Symbol.asyncIterator]();
    expect(await it.next()).toEqual({ done: false, value: { id: 'a0' } });
    expect(await it.return!()).toEqual({ done: true, value: undefined });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(urls()).toEqual(['/v1/assets']);
  });

  it('starts after the cursor given', async () => {
    serveAssets(6, 2);
    const ids = await client.assets.list({ cursor: '4' }).collect(10);
    expect(ids.map(idOf)).toEqual(['a4', 'a5']);
    expect(urls()).toEqual(['/v1/assets?cursor=4']);
  });

  it('a starting cursor that is not a string (untyped JavaScript) is refused before sending, never dropped', async () => {
    serveAssets(6, 2);
    const err = await Promise.resolve()
      .then(() => client.assets.list({ cursor: 4 as unknown as string }).collect(10))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('cursor');
    expect(urls()).toEqual([]);
  });

  it('has_more true with an empty next_cursor stops instead of looping', async () => {
    server.on('GET', '/v1/assets', { body: { data: [{ id: 'a' }], next_cursor: '', has_more: true } });
    const err = await client.assets
      .list()
      .collect(10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MerchantSdkError);
    expect(urls()).toEqual(['/v1/assets']);
  });
});

describe('has_more without a cursor, and next() asked early', () => {
  it('has_more true with a null next_cursor stops too, saying why', async () => {
    server.on('GET', '/v1/assets', { body: { data: [{ id: 'a' }], next_cursor: null, has_more: true } });
    const err = await client.assets
      .list()
      .collect(10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MerchantSdkError);
    expect((err as Error).message).toBe(
      'The list GET /v1/assets makes no progress: it reported has_more: true without a next_cursor; stopping instead of looping.',
    );
    expect(urls()).toEqual(['/v1/assets']);
  });

  it('a next() asked while earlier ones still wait gets the item after theirs', async () => {
    serveAssets(3, 3);
    const items = client.assets.list()[Symbol.asyncIterator]();
    const first = items.next();
    const second = items.next();
    // Asked as soon as the first settles, while the second still waits in line.
    const third = first.then(() => items.next());
    const ids = (await Promise.all([first, second, third])).map((r) => (r.done === true ? undefined : idOf(r.value)));
    expect(ids).toEqual(['a0', 'a1', 'a2']);
  });
});

describe('collect(max)', () => {
  it('collect(0) fetches nothing', async () => {
    serveAssets(5, 2);
    expect(await client.assets.list().collect(0)).toEqual([]);
    expect(server.calls()).toHaveLength(0);
  });

  it('stops fetching once max items are in hand', async () => {
    serveAssets(10, 2);
    expect((await client.assets.list().collect(4)).map(idOf)).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(urls()).toEqual(['/v1/assets', '/v1/assets?cursor=2']);
  });

  it('max must be a non-negative integer', async () => {
    for (const max of [-1, 1.5, Number.NaN, Infinity]) {
      const err = await client.assets
        .list()
        .collect(max)
        .catch((e: unknown) => e);
      expect(err, String(max)).toBeInstanceOf(RangeError);
      expect((err as Error).message).toBe('collect(max): max must be a non-negative integer.');
    }
  });
});

describe('restart detection by item identity (PageIterator)', () => {
  type Item = { id: string };
  const page = (ids: string[], next: string | null): Page<Item> => ({
    data: ids.map((id) => ({ id })),
    next_cursor: next,
    has_more: next !== null,
  });

  const meta: ResponseMeta = { requestId: undefined, status: 200, headers: {}, idempotencyKey: undefined, replayed: false, attempts: 1 };

  function iterator(pages: Record<string, Page<Item>>, identity?: (item: Item) => string | undefined) {
    const fetched: Array<string | undefined> = [];
    const it = new PageIterator<Item>(
      async (cursor) => {
        fetched.push(cursor);
        return { data: pages[cursor ?? 'first']!, response: meta };
      },
      { identity },
    );
    return { it, fetched };
  }

  it('the first item of the first page coming back means the cursor expired', async () => {
    const { it } = iterator({ first: page(['a', 'b'], 'c1'), c1: page(['a', 'b'], 'c2') }, (x) => x.id);
    const err = await it.collect(10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationRestartError);
    expect((err as PaginationRestartError).cursor).toBe('c1');
  });

  it('any item of the first page coming back is a restart, not only its first one', async () => {
    const { it, fetched } = iterator({ first: page(['a', 'b'], 'c1'), c1: page(['b', 'c'], null) }, (x) => x.id);
    const err = await it.collect(10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationRestartError);
    expect((err as PaginationRestartError).cursor).toBe('c1');
    expect(fetched).toEqual([undefined, 'c1']);
  });

  it('without an identity given, the item id is the identity', async () => {
    const { it } = iterator({ first: page(['a'], 'c1'), c1: page(['a'], null) });
    await expect(it.collect(10)).rejects.toBeInstanceOf(PaginationRestartError);
  });

  it('an identity that gives none checks nothing', async () => {
    const { it } = iterator({ first: page(['a'], 'c1'), c1: page(['a'], null) }, () => undefined);
    expect((await it.collect(10)).map((x) => x.id)).toEqual(['a', 'a']);
  });

  it('an empty later page is walked past, the check resuming on the next one', async () => {
    const { it, fetched } = iterator({ first: page(['a'], 'c1'), c1: page([], 'c2'), c2: page(['b'], null) }, (x) => x.id);
    expect((await it.collect(10)).map((x) => x.id)).toEqual(['a', 'b']);
    expect(fetched).toEqual([undefined, 'c1', 'c2']);
  });

  it('with a list order as well, a reappearing first item in order is still a restart by identity', async () => {
    const pages: Record<string, Page<Item>> = { first: page(['a', 'b'], 'c1'), c1: page(['a'], null) };
    const it = new PageIterator<Item>(async (cursor) => ({ data: pages[cursor ?? 'first']!, response: meta }), {
      order: () => true,
      identity: (x) => x.id,
    });
    await expect(it.collect(10)).rejects.toBeInstanceOf(PaginationRestartError);
  });

  it('an empty first page gives nothing to compare', async () => {
    const { it } = iterator({ first: page([], 'c1'), c1: page(['a'], null) }, (x) => x.id);
    expect((await it.collect(10)).map((x) => x.id)).toEqual(['a']);
  });
});
