/**
 * Real `redis-server` processes for the fleet tests: started on free loopback ports with their
 * own temporary directory, stopped (or killed, paused, resumed) by PID, with or without
 * persistence, alone or as a 3-master Cluster. Also finds out whether they can be started at all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Redis } from 'ioredis';

const PLACES = ['/usr/bin', '/usr/local/bin', '/usr/sbin', '/opt/homebrew/bin', '/snap/bin'];

/** Path of a Redis binary: the environment variable, then PATH, then the usual places. */
function findBinary(name: string, envVar: string, beside?: string): string | undefined {
  const fromEnv = process.env[envVar];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  if (beside !== undefined && existsSync(join(dirname(beside), name))) return join(dirname(beside), name);
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), ...PLACES]) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

export const REDIS_SERVER = findBinary('redis-server', 'REDIS_SERVER_BIN');
/** `redis-cli`, which creates the Cluster (`--cluster create`). */
export const REDIS_CLI = findBinary('redis-cli', 'REDIS_CLI_BIN', REDIS_SERVER);

function shout(lines: string[]): void {
  const width = Math.max(...lines.map((l) => l.length)) + 6;
  const bar = '!'.repeat(width);
  console.warn(`\n${bar}\n${lines.map((l) => `!! ${l.padEnd(width - 6)} !!`).join('\n')}\n${bar}\n`);
}

if (REDIS_SERVER === undefined) {
  shout([
    'FLEET TESTS SKIPPED: no redis-server binary found (PATH, /usr/bin, /usr/local/bin).',
    'Install it (Debian: apt-get install -y redis-server) or set REDIS_SERVER_BIN.',
    'RedisTokenStore, RedisEventStore and RedisRateLimiter are NOT tested in this run.',
  ]);
} else if (process.env['FLEET_DEBUG']) {
  console.log(spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).stdout.trim());
}

/** Says loudly why the Cluster suite is skipped (called by that suite only). */
export function warnClusterSkipped(): void {
  shout([
    'REDIS CLUSTER TESTS SKIPPED: redis-server or redis-cli not found.',
    'Install them (Debian: apt-get install -y redis-server redis-tools) or set REDIS_SERVER_BIN / REDIS_CLI_BIN.',
    'The fleet stores are NOT tested against a 3-master Cluster in this run.',
  ]);
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

/** How a server keeps its data across a restart. */
export type Persistence =
  /** Nothing: a restarted server is empty. */
  | 'none'
  /** Append-only file, fsync'd on every write: a SIGKILL loses nothing acknowledged. */
  | 'aof'
  /** An RDB snapshot, written only by an explicit `SAVE`, loaded at start. */
  | 'rdb';

/** Settings of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** A known port (to restart a server where its clients reconnect); default a free one. */
  readonly port?: number;
  /** Working directory (RDB and AOF files); default a new temporary one, removed by `stop`. */
  readonly dir?: string;
  /** Default `'none'`. */
  readonly persistence?: Persistence;
  /** More `--name value` arguments. */
  readonly args?: readonly string[];
}

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** Its working directory. */
  readonly dir: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** Sends a signal (SIGKILL to crash it, SIGSTOP/SIGCONT to stall it). */
  signal(signal: NodeJS.Signals): void;
  /** Stops it (SIGTERM, then SIGKILL after 2 s; at once if it has exited) and removes a directory it created. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on 127.0.0.1 and waits until it says it accepts connections (its own log
 * line: an event, not a polling deadline; the caller's time limit is the hang guard). A number is
 * read as `{ port }` (the older form).
 */
export async function startRedisServer(options: RedisServerOptions | number = {}): Promise<RedisServer> {
  if (REDIS_SERVER === undefined) throw new Error('redis-server not found');
  const o = typeof options === 'number' ? { port: options } : options;
  if (o.port !== undefined) return launch(REDIS_SERVER, o.port, o);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await launch(REDIS_SERVER, port, o);
    } catch (err) {
      // Another process may have taken the port between the probe and the bind.
      if (attempt >= 3) throw err;
    }
  }
}

function persistenceArgs(p: Persistence): string[] {
  switch (p) {
    case 'none':
      return ['--save', '', '--appendonly', 'no'];
    case 'aof':
      return ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
    case 'rdb':
      return ['--save', '', '--appendonly', 'no', '--dbfilename', 'dump.rdb'];
  }
}

function launch(bin: string, port: number, o: RedisServerOptions): Promise<RedisServer> {
  const ownDir = o.dir === undefined;
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'merchant-stablecoin-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    ...persistenceArgs(o.persistence ?? 'none'),
    '--protected-mode',
    'yes',
    '--loglevel',
    'notice',
    ...(o.args ?? []),
  ];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = async (): Promise<void> => {
    if (alive()) {
      child.kill('SIGCONT'); // a paused server would not act on SIGTERM
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  return Promise.race([ready.then(() => 'ready' as const), exited.then(() => 'exited' as const)]).then((first) => {
    if (first === 'exited') {
      if (ownDir) rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server exited with ${child.exitCode}: ${output.slice(-500)}`);
    }
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      pid: child.pid!,
      dir,
      exited,
      signal: (signal) => {
        if (alive()) process.kill(child.pid!, signal);
      },
      stop,
    };
  });
}

/** A running Cluster of masters on loopback. */
export interface RedisCluster {
  readonly nodes: ReadonlyArray<{ host: string; port: number }>;
  readonly servers: readonly RedisServer[];
  stop(): Promise<void>;
}

const CLUSTER_POLL_MS = 200;

/**
 * Starts `masters` cluster-enabled servers (each with its own bus port, `--cluster-port`), joins
 * them with `redis-cli --cluster create ... --cluster-yes`, and waits until every node's
 * `CLUSTER INFO` says `cluster_state:ok` with all slots assigned and every node known (polled:
 * the gossip takes its time on a loaded machine; the caller's hook timeout is the hang guard).
 */
export async function startCluster(masters = 3): Promise<RedisCluster> {
  if (REDIS_CLI === undefined) throw new Error('redis-cli not found');
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const busPort = await freePort();
      servers.push(
        await startRedisServer({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            '15000',
          ],
        }),
      );
    }
    await runCli(['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-yes']);
    for (const s of servers) await untilClusterOk(s.port, masters);
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
  return {
    nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

function runCli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(REDIS_CLI!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`redis-cli ${args.join(' ')} exited ${code}: ${output.slice(-800)}`)),
    );
  });
}

async function untilClusterOk(port: number, masters: number): Promise<void> {
  const node = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  node.on('error', () => undefined);
  try {
    await node.connect();
    for (;;) {
      const info = String(await node.call('CLUSTER', 'INFO'));
      const field = (name: string): string | undefined => new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
      if (field('cluster_state') === 'ok' && field('cluster_slots_ok') === '16384' && Number(field('cluster_known_nodes')) === masters)
        return;
      await new Promise((r) => setTimeout(r, CLUSTER_POLL_MS));
    }
  } finally {
    node.disconnect();
  }
}
