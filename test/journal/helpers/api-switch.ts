/**
 * A loopback TCP pass-through in front of a server that can be switched off and on at the same
 * address: off, it stops listening and destroys every open connection, so a client's next
 * connection is refused for real (ECONNREFUSED); on, it listens on the same port again. The
 * client's base URL, and so its journal scope, never changes.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** The switch. */
export interface ApiSwitch {
  /** Base URL to give the client. */
  readonly url: string;
  /** Refuse connections from now on (open ones are destroyed). */
  off(): Promise<void>;
  /** Accept connections again, on the same port. */
  on(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a switch in front of `targetUrl` (http://127.0.0.1:port). */
export async function startApiSwitch(targetUrl: string): Promise<ApiSwitch> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const serve = (): Server =>
    createServer((client) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  const listen = (server: Server, port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  let server: Server | undefined = serve();
  const port = await listen(server, 0);
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    off: stop,
    async on() {
      if (server !== undefined) return;
      server = serve();
      await listen(server, port);
    },
    close: stop,
  };
}
