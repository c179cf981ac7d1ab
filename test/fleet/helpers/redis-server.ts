/**
 * Starts a real `redis-server` on a free loopback port for the fleet tests (no persistence), and
 * finds out whether one can be started at all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

const CANDIDATES = [
  '/usr/bin/redis-server',
  '/usr/local/bin/redis-server',
  '/usr/sbin/redis-server',
  '/opt/homebrew/bin/redis-server',
  '/snap/bin/redis-server',
];

/** Path of the redis-server binary: `REDIS_SERVER_BIN`, then PATH, then the usual places. */
function findRedisServer(): string | undefined {
  const fromEnv = process.env['REDIS_SERVER_BIN'];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return CANDIDATES.find((p) => existsSync(p));
}

export const REDIS_SERVER = findRedisServer();
if (REDIS_SERVER === undefined) {
  console.warn(
    '\n' +
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' +
      '!! FLEET TESTS SKIPPED: no redis-server binary found (PATH, /usr/bin, /usr/local/bin).   !!\n' +
      '!! Install it (Debian: apt-get install -y redis-server) or set REDIS_SERVER_BIN.         !!\n' +
      '!! RedisTokenStore, RedisEventStore and RedisRateLimiter are NOT tested in this run.     !!\n' +
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n',
  );
} else if (process.env['FLEET_DEBUG']) {
  console.log(spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).stdout.trim());
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM, then SIGKILL after 2 s). */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server --port <free> --save '' --appendonly no` on 127.0.0.1 and waits until it
 * accepts connections. `port` restarts one on a known port (a restarted server is empty).
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  if (REDIS_SERVER === undefined) throw new Error('redis-server not found');
  if (port !== undefined) return launch(REDIS_SERVER, port);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await launch(REDIS_SERVER, port);
    } catch (err) {
      // Another process may have taken the port between the probe and the bind.
      if (attempt >= 3) throw err;
    }
  }
}

function launch(bin: string, port: number): Promise<RedisServer> {
  const child: ChildProcess = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };
  return (async () => {
    const deadline = Date.now() + 5000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output.slice(-500)}`);
      if (await ping(port)) return { port, url: `redis://127.0.0.1:${port}`, stop };
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`redis-server did not start on ${port}: ${output.slice(-500)}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
}

/** True when something answers PING on the port (a raw RESP exchange, no client library). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 500);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => done(d.toString().includes('PONG')));
    socket.on('error', () => done(false));
  });
}
