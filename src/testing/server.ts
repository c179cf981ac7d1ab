/** node:http adapter: the simulator on a real loopback socket. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SandboxResponse } from './responses.js';
import type { SandboxRequest } from './service.js';

/** Options of `sandbox.listen()`. */
export interface ListenOptions {
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** Interface; default `127.0.0.1`. */
  host?: string;
}

/** Whether `host` is a loopback interface (`127.0.0.0/8`, `::1`, `localhost`): only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/** A running sandbox server. */
export interface SandboxServer {
  /** Base URL, e.g. `http://127.0.0.1:53117`. */
  url: string;
  /** The port listened on. */
  port: number;
  /** Connections currently open (for socket-count assertions under load). */
  readonly connections: number;
  /**
   * The token the admin API (`/__sandbox/`) requires in the `x-sandbox-admin-token` header, or
   * undefined when it requires none: `sandbox.listen()` on loopback without `adminToken`.
   */
  readonly adminToken?: string;
  /** Stops listening and destroys open (keep-alive) connections. */
  close(): Promise<void>;
}

/** Serves `handle` over node:http; `req.url` is passed through as the exact path and query. */
export async function listen(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  options: ListenOptions = {},
): Promise<SandboxServer> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const clientIp = req.socket.remoteAddress;
      handle({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
        ...(clientIp !== undefined ? { clientIp } : {}),
      })
        .then((out) => {
          if (out.reset) {
            req.socket.destroy();
            return;
          }
          // Our own Date header (the signature clock), not Node's.
          res.sendDate = false;
          const payload = req.method === 'HEAD' ? '' : out.body;
          res.writeHead(out.status, { ...out.headers, 'content-length': String(Buffer.byteLength(payload)) });
          res.end(payload);
        })
        .catch(() => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('sandbox failure');
        });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostPart}:${port}`,
    port,
    get connections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
