/**
 * Issue 19 (with issue 15's lists): `list()` returns a real promise of the first page (`.catch`
 * and `.finally` work and typecheck), `withResponse()` gives the first page with its response,
 * and every page carries the response that brought it, on the wire: page 2's request id is its
 * own. The async iterator keeps working.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type MerchantClient, type Page, type PageResponse, type ResponseMeta } from '../../src/index.js';
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

/** Two pages of remittances, each answered with its own request id. */
function twoPages(): void {
  server.on('GET', '/v1/remittances', (req): Reply => {
    const second = cursorOf(req) === 'c1';
    return {
      headers: { 'x-request-id': second ? 'req_page_2' : 'req_page_1' },
      body: second
        ? { data: [{ id: 'rmt_3' }], next_cursor: null, has_more: false }
        : { data: [{ id: 'rmt_1' }, { id: 'rmt_2' }], next_cursor: 'c1', has_more: true },
    };
  });
}

describe('list() is a real promise whose pages carry their response', () => {
  it('.catch() and .finally() work on a list (a failing one is caught, finally runs)', async () => {
    server.on('GET', '/v1/assets', apiError(500, 'api_error'));
    let finished = false;
    const caught: unknown = await client.assets
      .list()
      .finally(() => {
        finished = true;
      })
      .catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(ApiError);
    expect(finished).toBe(true);
    expect(Object.prototype.toString.call(client.assets.list())).toBe('[object PagePromise]');
  });

  it('each page exposes the response that brought it: page 2 has its own request id', async () => {
    twoPages();
    const ids: Array<string | undefined> = [];
    for await (const page of client.member('m_1').remittances.list().pages()) ids.push(page.response.requestId);
    expect(ids).toEqual(['req_page_1', 'req_page_2']);
    expect(server.calls().map(cursorOf)).toEqual(['', 'c1']);
  });

  it('withResponse() gives the first page and its response; awaiting gives the page with response attached', async () => {
    twoPages();
    const { data, response } = await client.member('m_1').remittances.list().withResponse();
    expect(response).toMatchObject({ requestId: 'req_page_1', status: 200 });
    expect(data.data).toHaveLength(2);
    const page = await client.member('m_1').remittances.list();
    expect(page.response.requestId).toBe('req_page_1');
    // Not part of the page's JSON: the page still serialises as the service sent it.
    expect(JSON.parse(JSON.stringify(page))).toEqual({
      data: [{ id: 'rmt_1' }, { id: 'rmt_2' }],
      next_cursor: 'c1',
      has_more: true,
      shape: 'envelope',
      body: { data: [{ id: 'rmt_1' }, { id: 'rmt_2' }], next_cursor: 'c1', has_more: true },
    });
  });

  it('the async iterator and collect() keep working over the same pages', async () => {
    twoPages();
    const items: unknown[] = [];
    for await (const item of client.member('m_1').remittances.list()) items.push(item);
    expect(items).toEqual([{ id: 'rmt_1' }, { id: 'rmt_2' }, { id: 'rmt_3' }]);
    expect(await client.member('m_1').remittances.list().collect(2)).toEqual([{ id: 'rmt_1' }, { id: 'rmt_2' }]);
  });

  it('types: a list is a Promise of a page with its response', () => {
    const list: Promise<Page<unknown> & PageResponse> = client.assets.list();
    const meta: (p: PageResponse) => ResponseMeta = (p) => p.response;
    expect(typeof list.then).toBe('function');
    expect(typeof meta).toBe('function');
  });
});
