import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = (n: number) => {
  const sb = createSandbox();
  const seeded = sb.state.seedReports(n);
  return { sb, seeded, c: new TestClient(sb, viaHandle(sb)) };
};

type Item = { id: string; created_at: string };

describe('reports keyset pagination', () => {
  it('walks every report once, strictly descending by (created_at, id), ending on has_more false', async () => {
    const { seeded, c } = setup(45);
    const seen: Item[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await c.call('GET', `/v1/reports?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...(res.json.data as Item[]));
      cursor = res.json.next_cursor;
      expect(res.json.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen.map((r) => r.id).sort()).toEqual(seeded.map((r) => r.id).sort());
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1] as Item;
      const b = seen[i] as Item;
      const key = (x: Item) => [Date.parse(x.created_at), x.id] as const;
      const [ta, ia] = key(a);
      const [tb, ib] = key(b);
      expect(ta > tb || (ta === tb && ia > ib)).toBe(true);
    }
  });

  it('defaults to 20, caps at 100, and has no download_url in the list', async () => {
    const { c } = setup(130);
    const page = await c.call('GET', '/v1/reports');
    expect(page.json.data).toHaveLength(20);
    expect(page.json.data[0]).not.toHaveProperty('download_url');
    expect(Object.keys(page.json.data[0]).sort()).toEqual(['bytes', 'created_at', 'error', 'expires_at', 'id', 'kind', 'rows', 'status']);
    expect((await c.call('GET', '/v1/reports?limit=500')).json.data).toHaveLength(100);
    expect((await c.call('GET', '/v1/reports?limit=0')).json.code).toBe('invalid_request');
  });

  it('returns the first page for an undecodable or expired cursor, not an error', async () => {
    const { sb, c } = setup(30);
    const first = await c.call('GET', '/v1/reports?limit=10');
    const second = await c.call('GET', `/v1/reports?limit=10&cursor=${first.json.next_cursor}`);
    expect(second.json.data[0].id).not.toBe(first.json.data[0].id);

    const garbage = await c.call('GET', '/v1/reports?limit=10&cursor=%%%not-a-cursor');
    expect(garbage.status).toBe(200);
    expect(garbage.json.data[0].id).toBe(first.json.data[0].id);

    sb.state.expireCursors();
    const restarted = await c.call('GET', `/v1/reports?limit=10&cursor=${first.json.next_cursor}`);
    expect(restarted.json.data.map((r: Item) => r.id)).toEqual(first.json.data.map((r: Item) => r.id));

    // Cursors also expire with sandbox time (one hour).
    const fresh = await c.call('GET', '/v1/reports?limit=10');
    sb.clock.advance(60 * 60 * 1000 + 1);
    c.forget();
    const late = await c.call('GET', `/v1/reports?limit=10&cursor=${fresh.json.next_cursor}`);
    expect(late.json.data[0].id).toBe(first.json.data[0].id);
  });

  it('gives download_url on GET /v1/reports/{id} only when ready, and keeps unknown statuses', async () => {
    const { sb, seeded, c } = setup(10);
    const ready = seeded.find((r) => r.status === 'ready');
    const building = seeded.find((r) => r.status === 'building');
    expect((await c.call('GET', `/v1/reports/${ready?.id}`)).json.download_url).toMatch(/^https:\/\//);
    expect((await c.call('GET', `/v1/reports/${building?.id}`)).json.download_url).toBeNull();
    const odd = sb.state.seedReport({ status: 'archiving' });
    expect((await c.call('GET', `/v1/reports/${odd.id}`)).json.status).toBe('archiving');
    expect((await c.call('GET', '/v1/reports/rep_missing')).json.code).toBe('not_found');
  });
});
