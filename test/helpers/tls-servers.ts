/**
 * Loopback servers for the TLS failure paths: one that presents a certificate no client trusts
 * (self-signed, test-only, `test/fixtures/tls/`), and one that accepts TCP connections and never
 * answers, so a TLS handshake (or any request) stalls for as long as the test wants.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';

const FIXTURES = new URL('../fixtures/tls/', import.meta.url);

/** A loopback server and what it saw. */
export interface LoopbackServer {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Connections still open. */
  readonly open: number;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

async function listen(server: Server, sockets: Set<Socket>, counter: { accepted: number }): Promise<LoopbackServer> {
  server.on('connection', (s: Socket) => {
    counter.accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    get connections() {
      return counter.accepted;
    },
    get open() {
      return sockets.size;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTPS server whose certificate is self-signed: every client refuses it during the handshake. */
export function startUntrustedTlsServer(): Promise<LoopbackServer> {
  const server = createHttpsServer(
    { key: readFileSync(new URL('loopback-test.key', FIXTURES)), cert: readFileSync(new URL('loopback-test.crt', FIXTURES)) },
    (_req, res) => res.end('{}'),
  );
  server.on('tlsClientError', () => undefined);
  return listen(server, new Set(), { accepted: 0 });
}

/** A server that accepts connections and never writes a byte: a TLS handshake with it never completes. */
export function startStalledServer(): Promise<LoopbackServer> {
  // What the client sends is read and dropped, so that its end (or reset) closes the socket here.
  const server = createTcpServer((s) => void s.resume());
  return listen(server, new Set(), { accepted: 0 });
}
