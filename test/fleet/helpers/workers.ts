/**
 * Worker processes for the multi-instance tests: each fixture under `test/fleet/fixtures/` is a
 * separate Node process (own memory, own Redis connection, own HTTP pool) talking to the parent
 * over the IPC channel.
 *
 * A fixture runs as `node --import tsx fixtures/<name>.ts`. To keep 20 processes starting "at
 * once" from taking 15 s on a 2-CPU machine (tsx starts an esbuild child per process), the
 * fixture is first bundled once with esbuild into a temporary ES module and the workers run
 * `node <bundle>`; if esbuild cannot be loaded, they fall back to `node --import tsx`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** A message a fixture sends to the parent. */
interface WorkerMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** One running worker process. */
export interface Worker {
  readonly child: ChildProcess;
  readonly messages: WorkerMessage[];
  /**
   * Resolves with the first message of `type` (already received or future); rejects if the
   * worker exits first, or after `timeoutMs` (default 200 s: a hang guard that names the worker,
   * below the fleet tests' own limits; 20 processes starting on 2 loaded cores take a while).
   */
  next(type: string, timeoutMs?: number): Promise<WorkerMessage>;
  send(message: Record<string, unknown>): void;
  /** Resolves once every message the worker sent before answering this call has arrived. */
  sync(): Promise<void>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

interface Launcher {
  readonly file: string;
  readonly execArgv: string[];
}

const launchers = new Map<string, Promise<Launcher>>();
let buildDir: string | undefined;

function launcherFor(name: string): Promise<Launcher> {
  let l = launchers.get(name);
  if (l === undefined) {
    l = bundle(name);
    launchers.set(name, l);
  }
  return l;
}

async function bundle(name: string): Promise<Launcher> {
  // A fixture of test/fleet by name, or any other by its path (test/postgres's receiver).
  const source = name.endsWith('.ts') ? name : join(FIXTURES, `${name}.ts`);
  try {
    const esbuild = await import('esbuild');
    buildDir ??= mkdtempSync(join(tmpdir(), 'merchant-stablecoin-fleet-'));
    const file = join(buildDir, `${basename(name, '.ts')}.mjs`);
    await esbuild.build({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: file,
      logLevel: 'silent',
      // Bundled CommonJS dependencies (ioredis) call require(): give the ES module one.
      banner: {
        js: "import { createRequire as __fleetCreateRequire } from 'node:module'; const require = __fleetCreateRequire(import.meta.url);",
      },
    });
    return { file, execArgv: [] };
  } catch (err) {
    console.warn(
      `[fleet] could not bundle ${name} with esbuild (${err instanceof Error ? err.message : String(err)}); workers run with node --import tsx (slower start)`,
    );
    return { file: source, execArgv: ['--import', 'tsx'] };
  }
}

/** Removes the temporary bundles. */
export function cleanupBundles(): void {
  if (buildDir !== undefined) rmSync(buildDir, { recursive: true, force: true });
  buildDir = undefined;
  launchers.clear();
}

/** Prepares a fixture (bundles it) so that starting workers later is quick. */
export async function prepare(name: string): Promise<void> {
  await launcherFor(name);
}

/** Starts one worker running fixture `name` with extra environment variables. */
export async function startWorker(name: string, env: Record<string, string>, options: { pipeOutput?: boolean } = {}): Promise<Worker> {
  const { file, execArgv } = await launcherFor(name);
  const child = fork(file, [], {
    execArgv,
    env: { ...process.env, ...env },
    stdio: ['ignore', options.pipeOutput ? 'pipe' : 'inherit', options.pipeOutput ? 'pipe' : 'inherit', 'ipc'],
  });
  const messages: WorkerMessage[] = [];
  let syncs = 0;
  const waiters: Array<{ type: string; resolve: (m: WorkerMessage) => void }> = [];
  child.on('message', (m: WorkerMessage) => {
    messages.push(m);
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i]!.type === m.type) waiters.splice(i, 1)[0]!.resolve(m);
    }
  });
  // 'close', not 'exit': 'exit' can come before the last messages of the IPC channel are read (a
  // worker that sent 'done' and left at once looked, on a loaded machine, like one that never did).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    messages,
    exited,
    next(type, timeoutMs = 200_000) {
      const seen = messages.find((m) => m.type === type);
      if (seen) return Promise.resolve(seen);
      return new Promise<WorkerMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`worker ${name} sent no '${type}' within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          const failure = messages.find((m) => m.type === 'error');
          reject(new Error(`worker ${name} exited (${code}) before '${type}'${failure ? `: ${String(failure['message'])}` : ''}`));
        });
      });
    },
    send(message) {
      // A worker that is exiting may close its channel under a message: nothing to deliver then.
      if (child.connected) child.send(message, () => undefined);
    },
    sync() {
      const id = ++syncs;
      return new Promise<void>((resolve, reject) => {
        const onMessage = (m: WorkerMessage): void => {
          if (m.type !== 'synced' || m['id'] !== id) return;
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
        void exited.then((code) => reject(new Error(`worker ${name} exited (${code}) before answering a sync`)));
        child.send({ type: 'sync', id });
      });
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Drives the clock that `workers` share (fixtures/shared-clock.ts) and that `setNow` gives the
 * simulator: time stands still while any worker is busy, and moves to the earliest wake-up
 * among them once every worker has reported itself idle at the current time. Returns the
 * current time.
 */
export function driveSharedClock(workers: readonly Worker[], start: number, setNow: (ms: number) => void): { now(): number } {
  let now = start;
  let epoch = 0;
  const idle = new Map<Worker, { epoch: number; wake: number | null }>();
  const advance = (): void => {
    // A worker idle with no wake-up has finished for good (and may have exited): idle at any time.
    if (workers.some((w) => idle.get(w)?.wake !== null && idle.get(w)?.epoch !== epoch)) return;
    const wakes = workers.map((w) => idle.get(w)!.wake).filter((x): x is number => x !== null);
    if (wakes.length === 0) return; // every worker is done
    now = Math.max(now, Math.min(...wakes));
    epoch++;
    setNow(now);
    for (const w of workers) if (idle.get(w)?.wake !== null) w.send({ type: 'time', now, epoch });
  };
  for (const w of workers) {
    w.child.on('message', (m: WorkerMessage) => {
      if (m.type !== 'idle') return;
      idle.set(w, { epoch: Number(m['epoch']), wake: m['wake'] === null ? null : Number(m['wake']) });
      advance();
    });
  }
  return { now: () => now };
}
