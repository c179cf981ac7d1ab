/**
 * A loopback TCP pass-through for the crash-fault tests, in front of redis-server (or the ledger):
 * it forwards bytes both ways until told to fail, and then fails for real.
 *
 * - `cut()`: stops listening and destroys every open connection, so the client's next connection
 *   is refused (ECONNREFUSED) until `heal()` listens again on the same port. Refusing at the TCP
 *   level matters for ioredis: it fails a command it had in flight once `maxRetriesPerRequest`
 *   reconnections were refused, as against a dead Redis; a proxy that accepted and then closed
 *   each connection would let ioredis keep that command for a resend after the next handshake.
 * - `faultOn(needle, fault)`: the next client-to-server bytes containing `needle` (the record
 *   script's SHA in its EVALSHA, say) trigger `fault`: `lose-reply` forwards them, swallows what
 *   the server answers next on that connection, then cuts (the command ran, its answer is lost);
 *   `drop` forwards nothing and cuts (the command never reached the server). An event, never a
 *   timer, decides when.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** What `faultOn` does when its needle arrives. */
type Fault = 'lose-reply' | 'drop';

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on (the same after a `heal()`). */
  readonly port: number;
  /** Refuses connections from now on; the open ones are destroyed. Resolves once nothing listens. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  heal(): Promise<void>;
  /** Arms one fault for the next bytes containing `needle`; resolves once it happened (the proxy is then cut). */
  faultOn(needle: string, fault: Fault): Promise<void>;
  /** Cut for good. */
  close(): Promise<void>;
}

/** How much of a connection's earlier bytes a needle may straddle (a TCP chunk may split it). */
const TAIL = 1024;

/** Starts a proxy on a free loopback port in front of `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let armed: { needle: string; fault: Fault; done: () => void } | undefined;
  let server: Server | undefined;

  const cut = async (): Promise<void> => {
    const listening = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (listening !== undefined) await new Promise<void>((resolve) => listening.close(() => resolve()));
  };

  const pipe = (client: Socket): void => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let tail = '';
    let swallow: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      tail = text.slice(-TAIL);
      const fault = armed;
      if (fault !== undefined && text.includes(fault.needle)) {
        armed = undefined;
        if (fault.fault === 'drop') {
          void cut().then(fault.done);
          return;
        }
        swallow = fault.done;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallow === undefined) {
        client.write(chunk);
        return;
      }
      // The answer to the command: never delivered, and the link goes down with it.
      const done = swallow;
      swallow = undefined;
      void cut().then(done);
    });
  };

  const listen = (port: number): Promise<number> => {
    const s = createServer(pipe);
    server = s;
    return new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const address = s.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  };

  const port = await listen(0);
  return {
    port,
    cut,
    async heal() {
      if (server === undefined) await listen(port);
    },
    faultOn(needle, fault) {
      return new Promise<void>((done) => (armed = { needle, fault, done }));
    },
    close: cut,
  };
}
