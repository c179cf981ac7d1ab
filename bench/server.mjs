// The benchmark's stand-in for the service: a minimal node:http server on loopback, run in its own
// process (forked by suite.mjs) so that its CPU is not charged to the contenders. It answers canned,
// realistic responses and does no verification: every contender pays the same server cost.
//
//   POST /v1/connect/token          token (counted; optional delay so concurrent callers overlap)
//   POST /v1/withdrawals            201 withdrawal order (also /v2/withdrawals: stripe-node sends
//                                   JSON only to /v2 paths, so its contender posts there)
//   POST /v1/withdrawals/{id}/confirm, /fail
//                                   200 with the withdrawal's id (the spec shows no body: the
//                                   payout bench's confirm reads nothing of it)
//   GET  /v1/reports?limit&cursor   a page of `limit` reports, strictly descending, `pages` pages
//   GET  /__stats, POST /__reset    token-exchange counter, and settings (token delay)
import { createServer } from 'node:http';

const TOTAL_PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
let tokenExchanges = 0;
let tokenDelayMs = 0;
let requestCounter = 0;

const TOKEN_BODY = JSON.stringify({
  auth_token: 'tok_' + 'a1b2c3d4'.repeat(8),
  expired_at: Math.floor(Date.now() / 1000) + 1800,
  token_type: 'Bearer',
  scopes: ['withdrawals:write', 'merchant:read', 'qrpay:write'],
});

const WITHDRAWAL_BODY = JSON.stringify({
  id: 'wdr_6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d',
  status: 'locked',
  asset: 'USDT',
  amount: '25.50',
  ledger_scale: 6,
  to_address: 'TXYZ1234567890abcdefghijklmnopqrstu',
  member_id: 'mem_0b7e5c1a-2f3d-4e6a-8b9c-1d2e3f4a5b6c',
  created_at: '2026-03-01T10:15:30.123Z',
});

const SETTLE_PATH = /^\/v1\/withdrawals\/([^/?]+)\/(?:confirm|fail)$/;

// Reports descend by (created_at, id): item g (0-based over the whole list) is g seconds older.
const BASE_MS = Date.parse('2026-03-01T00:00:00.000Z');
const EXPIRES = '2026-03-08T00:00:00.000Z';
function reportsPage(pageIndex, limit) {
  let out = '{"data":[';
  const first = pageIndex * limit;
  for (let i = 0; i < limit; i++) {
    const g = first + i;
    if (i > 0) out += ',';
    out +=
      `{"id":"rep_00000000-0000-4000-8000-${g.toString(16).padStart(12, '0')}","kind":"statements","status":"ready",` +
      `"rows":${1000 + (g % 9000)},"bytes":${250_000 + g},"error":"","expires_at":"${EXPIRES}",` +
      `"created_at":"${new Date(BASE_MS - g * 1000).toISOString()}","format":"csv"}`;
  }
  const more = pageIndex + 1 < TOTAL_PAGES;
  // Opaque-looking cursor, as a keyset cursor would be.
  const next = more ? `"${Buffer.from(`p:${pageIndex + 1}`).toString('base64url')}"` : 'null';
  return `${out}],"next_cursor":${next},"has_more":${more}}`;
}

function send(res, status, body) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': `req_${(++requestCounter).toString(36)}`,
  });
  res.end(body);
}

const server = createServer((req, res) => {
  const url = req.url;
  if (req.method === 'POST') {
    // Drain the body before answering, as a real service does.
    req.on('data', () => {});
    req.on('end', () => {
      if (url === '/v1/withdrawals' || url === '/v2/withdrawals') return send(res, 201, WITHDRAWAL_BODY);
      const settle = SETTLE_PATH.exec(url);
      if (settle) return send(res, 200, `{"id":${JSON.stringify(decodeURIComponent(settle[1]))}}`);
      if (url === '/v1/connect/token') {
        tokenExchanges++;
        if (tokenDelayMs > 0) return void setTimeout(() => send(res, 200, TOKEN_BODY), tokenDelayMs);
        return send(res, 200, TOKEN_BODY);
      }
      if (url.startsWith('/__reset')) {
        tokenExchanges = 0;
        const delay = /delay=(\d+)/.exec(url);
        tokenDelayMs = delay ? Number(delay[1]) : 0;
        return send(res, 200, '{"ok":true}');
      }
      send(res, 404, '{"type":"not_found","code":"not_found","message":"no route","request_id":"req_x"}');
    });
    return;
  }
  if (url.startsWith('/v1/reports')) {
    const q = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    const limit = Math.min(100, Number(q.get('limit') ?? 20));
    const cursor = q.get('cursor');
    let page = 0;
    if (cursor) {
      const m = /^p:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
      page = m ? Number(m[1]) : 0; // an undecodable cursor returns the first page (spec)
    }
    return send(res, 200, reportsPage(page, limit));
  }
  if (url === '/__stats') return send(res, 200, JSON.stringify({ tokenExchanges }));
  send(res, 404, '{"type":"not_found","code":"not_found","message":"no route","request_id":"req_x"}');
});

server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
