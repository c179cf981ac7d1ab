/**
 * Real PostgreSQL servers for the tests: Debian's `postgresql` package, `initdb` into a temporary
 * folder and `pg_ctl` on a free loopback port, as a non-root user when the tests run as root
 * (initdb refuses root), stopped (or killed) by PID. Also finds out whether they can be started.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../fleet/helpers/redis-server.js';

/** The folder holding `initdb`, `pg_ctl` and `postgres`: the variable, `pg_config`, then Debian's versioned folders. */
function findBindir(): string | undefined {
  const has = (dir: string | undefined): dir is string =>
    dir !== undefined && dir !== '' && ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  const fromEnv = process.env['PG_BINDIR'];
  if (has(fromEnv)) return fromEnv;
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const fromConfig = config.status === 0 ? config.stdout.trim() : undefined;
  if (has(fromConfig)) return fromConfig;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.map((v) => join(root, v, 'bin')).find(has);
}

/** How to run a PostgreSQL binary: as `nobody` (through setpriv or runuser) when this process is root. */
function runnerOf(): { prefix: string[]; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return { prefix: [], uid: -1, gid: -1 };
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) return undefined;
  if (spawnSync('setpriv', ['--version']).status === 0)
    return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'], uid, gid };
  if (spawnSync('runuser', ['--version']).status === 0) return { prefix: ['runuser', '-u', 'nobody', '--'], uid, gid };
  return undefined;
}

const PG_BINDIR = findBindir();
const RUNNER = PG_BINDIR === undefined ? undefined : runnerOf();
/** Whether a PostgreSQL server can be started here: the suites skip (loudly) otherwise. */
export const POSTGRES_AVAILABLE = PG_BINDIR !== undefined && RUNNER !== undefined;

if (!POSTGRES_AVAILABLE) {
  const lines = [
    PG_BINDIR === undefined
      ? 'POSTGRESQL TESTS SKIPPED: no initdb/pg_ctl/postgres found (PG_BINDIR, pg_config --bindir, /usr/lib/postgresql/*/bin).'
      : 'POSTGRESQL TESTS SKIPPED: running as root, and neither setpriv nor runuser can run PostgreSQL as nobody.',
    'Install it (Debian: apt-get install -y postgresql) or set PG_BINDIR.',
    'PostgresJournal and PostgresEventStore are NOT tested in this run.',
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 6;
  const bar = '!'.repeat(width);
  console.warn(`\n${bar}\n${lines.map((l) => `!! ${l.padEnd(width - 6)} !!`).join('\n')}\n${bar}\n`);
}

/** The least-privilege role of docs/postgres.md the stores connect as, and its password. */
export const APP_ROLE = 'merchant_app';
const APP_PASSWORD = 'app-password-5d1c';

/**
 * A pool on `url` whose idle clients may die with the server (a stop, a crash) without an
 * unhandled error: node-postgres emits those on the pool.
 */
export function poolOf(url: string, max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return pool;
}

/** A running server. */
export interface PostgresServer {
  readonly port: number;
  /** The superuser's connection string (trust auth on loopback; the owner of the tables). */
  readonly url: string;
  /** The connection string of {@link APP_ROLE}. */
  readonly appUrl: string;
  /** The postmaster's PID (changes on restart). */
  pid(): number;
  /** Fast shutdown (`pg_ctl stop -m fast`), resolves once the server is gone. */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster and its children: a crash. */
  kill(): void;
  /**
   * SIGSTOP to the postmaster, then to its children: a frozen server (a VM paused, a hung disk).
   * Its sockets stay open and the kernel still accepts connections; nothing answers.
   */
  freeze(): void;
  /** SIGCONT to the processes {@link freeze} stopped. */
  thaw(): void;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

function run(args: string[], what: string): void {
  const [command, ...rest] = [...RUNNER!.prefix, ...args];
  const result = spawnSync(command!, rest, { encoding: 'utf8', cwd: '/' });
  if (result.status !== 0) throw new Error(`${what} failed (${String(result.status)}): ${result.stderr}${result.stdout}`);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The PIDs whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // The process ended while listed.
    }
  }
  return out;
}

/**
 * `run`, without blocking this process: the tests keep delivering while a server stops. Rejects,
 * with the tool's output, when it fails.
 */
function runAsync(args: string[], what: string): Promise<void> {
  const [command, ...rest] = [...RUNNER!.prefix, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, rest, { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${String(code)}): ${output}`))));
  });
}

/** Starts a fresh server with the least-privilege role of docs/postgres.md created. */
export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-pg-'));
  const data = join(dir, 'data');
  if (RUNNER!.uid >= 0) chownSync(dir, RUNNER!.uid, RUNNER!.gid);
  run([join(PG_BINDIR!, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], 'initdb');
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  let pid = 0;
  let frozen: number[] = [];
  const start = async (): Promise<void> => {
    run([join(PG_BINDIR!, 'pg_ctl'), '-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '120', 'start'], 'pg_ctl start');
    pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  };
  await start();
  // A test process that ends without its afterAll (a worker torn down) still stops its server.
  process.once('exit', () => {
    // A frozen server cannot stop: it is woken first.
    for (const p of frozen) if (alive(p)) process.kill(p, 'SIGCONT');
    if (pid !== 0 && alive(pid)) process.kill(pid, 'SIGINT');
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${APP_PASSWORD}'`);
  await admin.end();
  const stop = async (): Promise<void> => {
    if (pid === 0 || !alive(pid)) return;
    // A fast shutdown (what SIGINT asks for); pg_ctl waits for the server to be gone, and fails
    // loudly past its own bound instead of letting the test hang.
    await runAsync([join(PG_BINDIR!, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', '-t', '120', 'stop'], 'pg_ctl stop');
  };
  return {
    port,
    url,
    appUrl: `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${port}/postgres`,
    pid: () => pid,
    stop,
    freeze() {
      process.kill(pid, 'SIGSTOP');
      // Stopped first, the postmaster forks no backend while its children are listed.
      frozen = [pid, ...childrenOf(pid)];
      for (const p of frozen.slice(1)) process.kill(p, 'SIGSTOP');
    },
    thaw() {
      for (const p of frozen.reverse()) if (alive(p)) process.kill(p, 'SIGCONT');
      frozen = [];
    },
    kill() {
      // The postmaster first, then its backends (they exit when their parent dies, but not at once).
      process.kill(pid, 'SIGKILL');
    },
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
