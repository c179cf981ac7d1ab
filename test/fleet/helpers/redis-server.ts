/**
 * Starts a real `redis-server` on a free loopback port for the fleet tests (no persistence), and
 * finds out whether one can be started at all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
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
 * says it accepts connections (its own log line: an event, not a polling deadline; the caller's
 * time limit is the hang guard). `port` restarts one on a known port (a restarted server is
 * empty).
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
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'notice'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const collect = (b: Buffer): void => {
    output += b.toString();
    if (output.includes('Ready to accept connections')) onReady();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };
  return Promise.race([ready.then(() => 'ready' as const), exited.then(() => 'exited' as const)]).then((first) => {
    if (first === 'exited') throw new Error(`redis-server exited with ${child.exitCode}: ${output.slice(-500)}`);
    return { port, url: `redis://127.0.0.1:${port}`, stop };
  });
}
