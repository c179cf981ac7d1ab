/**
 * A small loopback `node:http` server for wire tests. It records every request with its raw
 * bytes and verifies signatures with its own code (node:crypto written here, not the SDK's
 * signing module), so a bug in the SDK's signing cannot make the tests agree with themselves.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with query exactly as received on the socket. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Result of the independent signature check (undefined for unsigned methods). */
  signatureValid: boolean | undefined;
  /** Set when the client closed the connection before the answer was complete (an abort). */
  abandoned?: true;
  /** `Date.now()` when the request was read (the fake clock's time under fake timers). */
  receivedAt: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Object (sent as JSON) or raw string. */
  body?: unknown;
  /** Destroy the socket without answering. */
  reset?: boolean;
  /** Wait before answering. */
  delayMs?: number;
  /** Send headers then stall the body forever. */
  stallBody?: boolean;
}

type Handler = (req: RecordedRequest, n: number) => Reply | Promise<Reply>;

export interface WireServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests other than the token exchange. */
  calls(): RecordedRequest[];
  tokenExchanges(): number;
  /** Set the handler for `METHOD /path` (path without query). */
  on(method: string, path: string, handler: Handler | Reply | Reply[]): void;
  /** Token replies; default: a 30-minute token `tok_<n>`. */
  onToken(handler: Handler | Reply | Reply[]): void;
  close(): Promise<void>;
}

export const SIGNING_KEY = 'sk_wire_test_3xY9';
export const API_KEY = 'ak_wire_test_Q7p2';
export const CLIENT_ID = 'cli_wire_test';

/** The withdrawal the wire suites create, and the order a 201 answers it with. */
export const WITHDRAWAL = { asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9' } as const;
export const ORDER = { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '25.50', ledger_scale: 6, to_address: 'TQ7x1Vb9' };

function verifySignature(signingKey: string, req: RecordedRequest): boolean {
  const ts = req.headers['x-timestamp'];
  const nonce = req.headers['x-nonce'];
  const sig = req.headers['x-signature'];
  if (!ts || !nonce || !sig) return false;
  const bodyHash = createHash('sha256').update(req.body).digest('hex');
  const text = [req.method, req.url, ts, nonce, bodyHash].join('\n');
  return createHmac('sha256', signingKey).update(text).digest('base64') === sig;
}

function toHandler(h: Handler | Reply | Reply[]): Handler {
  if (typeof h === 'function') return h;
  if (Array.isArray(h)) return (_req, n) => h[Math.min(n, h.length - 1)]!;
  return () => h;
}

export async function startWireServer(signingKey = SIGNING_KEY): Promise<WireServer> {
  const handlers = new Map<string, { handler: Handler; count: number }>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let tokenCount = 0;
  let tokenHandler: Handler = () => ({
    body: { auth_token: `tok_${++tokenCount}`, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
  });
  let tokenCalls = 0;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const rec: RecordedRequest = {
          method: req.method!,
          url: req.url!,
          headers,
          body: Buffer.concat(chunks),
          signatureValid: undefined,
          receivedAt: Date.now(),
        };
        if (rec.method !== 'GET' && rec.method !== 'HEAD') rec.signatureValid = verifySignature(signingKey, rec);
        requests.push(rec);
        res.on('close', () => {
          if (!res.writableFinished) rec.abandoned = true;
        });
        const path = rec.url.split('?')[0]!;
        let reply: Reply;
        if (rec.method === 'POST' && path === '/v1/connect/token') {
          reply = await tokenHandler(rec, tokenCalls++);
        } else {
          const entry = handlers.get(`${rec.method} ${path}`);
          reply = entry
            ? await entry.handler(rec, entry.count++)
            : { status: 404, body: { type: 'not_found', code: 'not_found', message: 'no handler', request_id: 'req_404' } };
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (reply.reset) {
          req.socket.destroy();
          return;
        }
        const status = reply.status ?? 200;
        const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        const isJson = typeof reply.body !== 'string';
        res.writeHead(status, {
          'content-type': isJson ? 'application/json' : 'text/html',
          'x-request-id': `req_${requests.length}`,
          ...reply.headers,
        });
        if (reply.stallBody) {
          res.write(body.slice(0, 5));
          return;
        }
        res.end(body);
      })();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    calls: () => requests.filter((r) => r.url !== '/v1/connect/token'),
    tokenExchanges: () => requests.filter((r) => r.url === '/v1/connect/token').length,
    on(method, path, handler) {
      handlers.set(`${method} ${path}`, { handler: toHandler(handler), count: 0 });
    },
    onToken(handler) {
      tokenHandler = toHandler(handler);
      tokenCalls = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Error body in the spec's envelope. */
export function apiError(status: number, code: string, extra: Record<string, unknown> = {}): Reply {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found',
    409: 'idempotency_error',
    429: 'rate_limit_error',
    500: 'api_error',
    502: 'upstream_error',
    504: 'upstream_timeout',
  };
  return { status, body: { type: types[status] ?? 'api_error', code, message: `${code} happened`, request_id: `req_${code}`, ...extra } };
}

/** The idempotency keys the server received on `url` (path with query, as sent), in order. */
export function idempotencyKeysOn(server: WireServer, url: string): string[] {
  return server
    .calls()
    .filter((c) => c.url === url)
    .map((c) => c.headers['x-idempotency-key']!);
}
