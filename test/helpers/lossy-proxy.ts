/**
 * A hostile loopback proxy in front of a real server (the sandbox over HTTP): every request goes
 * through unchanged (raw path, headers and body bytes, so signatures still verify), and the
 * answers of the requests a rule picks are lost on the way back, after the server processed them:
 *
 * - `reset`: once the server has answered, the client's socket is destroyed (a reset after
 *   sending, from the client's side);
 * - `hold`: the server's answer is never passed on, so the client's own timeout fires.
 *
 * Tests then count at the server what happened, whatever the client believes.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What happens to the answer of one request. */
export type Loss = 'reset' | 'hold' | undefined;

/** An answer the server gave and the client never received. */
interface LostAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
}

export interface LossyProxy {
  /** Base URL to give the client. */
  readonly url: string;
  /** Answers lost so far, in order. */
  readonly lost: readonly LostAnswer[];
  /** Resolves once `count` answers have been lost: the server has processed those requests. */
  waitForLost(count: number): Promise<void>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forward(
  target: URL,
  req: IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  const headers = { ...req.headers, host: target.host };
  delete headers['connection'];
  return new Promise((resolve, reject) => {
    const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (res) => {
      void readBody(res).then((b) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }), reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

/** Starts the proxy on loopback in front of `targetUrl`; `rule` picks what happens to each answer. */
export async function startLossyProxy(targetUrl: string, rule: (method: string, path: string) => Loss): Promise<LossyProxy> {
  const target = new URL(targetUrl);
  const lost: LostAnswer[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  const wake = (): void => {
    for (const w of waiters.filter((x) => x.count <= lost.length)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const path = (req.url ?? '/').split('?')[0]!;
      const loss = rule(req.method ?? 'GET', path);
      const answer = await forward(target, req, body);
      if (loss !== undefined) {
        lost.push({ method: req.method ?? 'GET', path, status: answer.status, body: answer.body.toString('utf8') });
        wake();
        // `hold` keeps the socket open and silent; the client gives up on its own.
        if (loss === 'reset') req.socket.destroy();
        return;
      }
      const headers = { ...answer.headers };
      delete headers['connection'];
      delete headers['transfer-encoding'];
      res.writeHead(answer.status, headers);
      res.end(answer.body);
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    lost,
    waitForLost(count) {
      if (lost.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
