// The servers the store benchmarks need, started here on free loopback ports and stopped after:
// redis-server (no persistence: a fleet's Redis is another host, so this is its floor) and
// PostgreSQL (initdb into a temporary folder, pg_ctl, as `nobody` when run as root; fsync and
// synchronous_commit as shipped, so a commit costs what it costs on this disk). Either is
// undefined when not installed, and the bench says so.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function findRedisServer() {
  if (process.env.REDIS_SERVER_BIN && existsSync(process.env.REDIS_SERVER_BIN)) return process.env.REDIS_SERVER_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
}

/** Starts redis-server on a free port; resolves with its port and a stop function, or undefined when none is installed. */
export async function startRedis() {
  const bin = findRedisServer();
  if (bin === undefined) return undefined;
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise((resolve, reject) => {
    const collect = (b) => {
      out += b;
      if (out.includes('Ready to accept connections')) resolve();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-300)}`)));
  });
  return { port, stop: () => child.kill('SIGKILL') };
}

/** Debian's versioned folder (or PG_BINDIR, or pg_config's) holding initdb and pg_ctl. */
function findPgBindir() {
  const has = (d) => d && ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(d, b)));
  if (has(process.env.PG_BINDIR)) return process.env.PG_BINDIR;
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (config.status === 0 && has(config.stdout.trim())) return config.stdout.trim();
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(root, v, 'bin'))
    .find(has);
}

/**
 * Starts PostgreSQL on a free port (trust authentication on loopback); resolves with its URL and
 * a stop function, or undefined when it is not installed (or cannot be run as nobody under root).
 */
export async function startPostgres() {
  const bindir = findPgBindir();
  if (bindir === undefined) return undefined;
  let prefix = [];
  const dir = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-bench-pg-'));
  if (process.getuid?.() === 0) {
    const id = (flag) => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
    if (spawnSync('setpriv', ['--version']).status !== 0) return undefined;
    prefix = ['setpriv', `--reuid=${id('-u')}`, `--regid=${id('-g')}`, '--clear-groups', '--'];
    chownSync(dir, id('-u'), id('-g'));
  }
  const run = (args) => {
    const [cmd, ...rest] = [...prefix, ...args];
    const r = spawnSync(cmd, rest, { encoding: 'utf8', cwd: '/' });
    if (r.status !== 0) throw new Error(`${args[0]} failed: ${r.stderr}${r.stdout}`);
  };
  const data = join(dir, 'data');
  const port = await freePort();
  run([join(bindir, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  run([
    join(bindir, 'pg_ctl'),
    '-D',
    data,
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-l',
    join(dir, 'log'),
    '-w',
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        run([join(bindir, 'pg_ctl'), '-D', data, '-m', 'fast', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
