import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PaginationRestartError, type MerchantClient } from '../../src/index.js';
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

const report = (i: number) => ({
  id: `rep_${String(i).padStart(4, '0')}`,
  kind: 'statements',
  status: 'ready',
  rows: 1,
  bytes: 1,
  error: '',
  expires_at: '2026-12-01T00:00:00Z',
  created_at: new Date(Date.UTC(2026, 0, 1) + (1000 - i) * 60_000).toISOString(),
});

/** Keyset pages of `total` reports, strictly descending; cursor = index of the next item. */
function serve(total: number, opts: { restartAt?: number; lastPageHasMore?: boolean } = {}) {
  server.on('GET', '/v1/reports', (req) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const limit = Number(q.get('limit') ?? 20);
    let start = q.has('cursor') ? Number(q.get('cursor')) : 0;
    if (opts.restartAt !== undefined && start === opts.restartAt) start = 0; // expired cursor: first page
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, k) => report(start + k));
    const more = start + limit < total;
    return { body: { data, next_cursor: more ? String(start + limit) : null, has_more: more } };
  });
}

describe('keyset lists', () => {
  it('await gives the first page; for-await walks every item once; has_more alone ends it', async () => {
    serve(45);
    const first = await client.reports.list({ limit: 20 });
    expect(first.data).toHaveLength(20);
    expect(first.has_more).toBe(true);
    const ids: string[] = [];
    for await (const r of client.reports.list({ limit: 20 })) ids.push(r.id);
    expect(ids).toHaveLength(45);
    expect(new Set(ids).size).toBe(45);
    expect(server.calls().map((c) => c.url)).toEqual([
      '/v1/reports?limit=20',
      '/v1/reports?limit=20',
      '/v1/reports?limit=20&cursor=20',
      '/v1/reports?limit=20&cursor=40',
    ]);
  });

  it('a short page with has_more true keeps going', async () => {
    let n = 0;
    server.on('GET', '/v1/reports', () => {
      n++;
      return {
        body:
          n === 1 ? { data: [report(0)], next_cursor: 'c2', has_more: true } : { data: [report(1)], next_cursor: null, has_more: false },
      };
    });
    const all = await client.reports.list({ limit: 100 }).collect(10);
    expect(all.map((r) => r.id)).toEqual(['rep_0000', 'rep_0001']);
  });

  it('pages() yields whole pages and collect(max) caps the total', async () => {
    serve(30);
    const sizes: number[] = [];
    for await (const page of client.reports.list({ limit: 10 }).pages()) sizes.push(page.data.length);
    expect(sizes).toEqual([10, 10, 10]);
    const five = await client.reports.list({ limit: 10 }).collect(5);
    expect(five).toHaveLength(5);
  });

  it('detects the silent restart of an expired cursor instead of yielding duplicates', async () => {
    serve(100, { restartAt: 40 });
    const ids: string[] = [];
    const err = await (async () => {
      for await (const r of client.reports.list({ limit: 20 })) ids.push(r.id);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationRestartError);
    expect((err as PaginationRestartError).cursor).toBe('40');
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});
