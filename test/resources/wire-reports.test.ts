import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PaginationRestartError, type MerchantClient } from '../../src/index.js';
import { reportsDescending } from '../../src/resources/index.js';
import type { ExportReport } from '../../src/schemas/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type RecordedRequest, type WireServer } from '../helpers/wire-server.js';
import { report } from '../schemas/fixtures.js';

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

const rep = (id: string, created_at: string): ExportReport => ({ ...report, id, created_at });
const page1 = { data: [rep('rep_5', '2026-01-05T00:00:00Z'), rep('rep_4', '2026-01-04T00:00:00Z')], next_cursor: 'c1', has_more: true };
const page2 = { data: [rep('rep_3', '2026-01-04T00:00:00Z'), rep('rep_2', '2026-01-02T00:00:00Z')], next_cursor: 'c2', has_more: true };
const page3 = { data: [rep('rep_1', '2026-01-01T00:00:00Z')], next_cursor: null, has_more: false };

function byCursor(pages: Record<string, unknown>) {
  return (req: RecordedRequest) => ({ body: pages[new URL(req.url, 'http://x').searchParams.get('cursor') ?? ''] });
}

describe('reports.list', () => {
  it('iterates every page until has_more is false, passing limit and cursor', async () => {
    server.on('GET', '/v1/reports', byCursor({ '': page1, c1: page2, c2: page3 }));
    const ids: string[] = [];
    for await (const r of client.reports.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toEqual(['rep_5', 'rep_4', 'rep_3', 'rep_2', 'rep_1']);
    expect(server.calls().map((r) => r.url)).toEqual([
      '/v1/reports?limit=2',
      '/v1/reports?limit=2&cursor=c1',
      '/v1/reports?limit=2&cursor=c2',
    ]);
  });

  it('does not stop on a short page while has_more is true', async () => {
    server.on('GET', '/v1/reports', byCursor({ '': { ...page1, data: [] }, c1: page3 }));
    expect((await client.reports.list().collect(10)).map((r) => r.id)).toEqual(['rep_1']);
  });

  it('detects the silent restart of an expired cursor instead of yielding duplicates', async () => {
    // The service answers the expired cursor c1 with the first page again.
    server.on('GET', '/v1/reports', byCursor({ '': page1, c1: page1 }));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const r of client.reports.list()) seen.push(r.id);
      })(),
    ).rejects.toBeInstanceOf(PaginationRestartError);
    expect(seen).toEqual(['rep_5', 'rep_4']);
  });

  it('starts from a given cursor', async () => {
    server.on('GET', '/v1/reports', byCursor({ c2: page3 }));
    const first = await client.reports.list({ cursor: 'c2' });
    expect(first.data.map((r) => r.id)).toEqual(['rep_1']);
    expect(server.calls()[0]!.url).toBe('/v1/reports?cursor=c2');
  });
});

describe('reportsDescending', () => {
  it('accepts strictly descending (created_at, id) and rejects anything else', () => {
    const a = rep('rep_b', '2026-01-02T00:00:00Z');
    expect(reportsDescending(a, rep('rep_a', '2026-01-02T00:00:00Z'))).toBe(true);
    expect(reportsDescending(a, rep('rep_z', '2026-01-01T23:59:59Z'))).toBe(true);
    expect(reportsDescending(a, rep('rep_c', '2026-01-02T00:00:00Z'))).toBe(false);
    expect(reportsDescending(a, a)).toBe(false);
    expect(reportsDescending(a, rep('rep_a', '2026-01-03T00:00:00Z'))).toBe(false);
    // Created_at is compared as an instant: the same instant in another offset is a tie, broken by id.
    expect(reportsDescending(rep('rep_b', '2026-01-02T08:00:00+08:00'), rep('rep_a', '2026-01-02T00:00:00Z'))).toBe(true);
    expect(reportsDescending(rep('rep_a', '2026-01-02T08:00:00+08:00'), rep('rep_b', '2026-01-02T00:00:00Z'))).toBe(false);
    expect(reportsDescending(rep('rep_a', '2026-01-02T09:00:00+08:00'), rep('rep_b', '2026-01-02T00:30:00Z'))).toBe(true);
    // Digits below the millisecond still order.
    expect(reportsDescending(rep('rep_a', '2026-01-02T00:00:00.000002Z'), rep('rep_b', '2026-01-02T00:00:00.000001Z'))).toBe(true);
    expect(reportsDescending(rep('rep_b', '2026-01-02T00:00:00.000001Z'), rep('rep_a', '2026-01-02T00:00:00.000002Z'))).toBe(false);
  });
});
