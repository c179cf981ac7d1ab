/**
 * Real child processes for the crash tests: a fixture (`fixtures/journal-child.ts` here, the
 * payout worker of test/payouts through {@link childProcesses}), bundled once with esbuild (so
 * each start costs a plain `node` start, not a TypeScript compile), forked with an IPC channel,
 * and killed with SIGKILL where the crash is the point.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'journal-child.ts');

/** A message from a child. */
export interface ChildMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** One running child. */
export interface Child {
  readonly process: ChildProcess;
  /**
   * The first message of `type` (already received or future) for which `where` holds (any when
   * not given); rejects if the child exits first.
   */
  next(type: string, where?: (message: ChildMessage) => boolean): Promise<ChildMessage>;
  /** Every message of `type` received so far, in order. */
  messages(type: string): ChildMessage[];
  send(message: Record<string, unknown>): void;
  /** SIGKILL, and resolves once the process is gone. */
  kill(): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Starts and cleans up the children of one fixture. */
export interface ChildProcesses {
  /** Starts a child with these environment variables (the fixture reads its role from them). */
  start(env: Record<string, string>): Promise<Child>;
  /** Removes the bundle. */
  cleanup(): Promise<void>;
}

async function bundle(fixture: string): Promise<{ file: string; dir: string }> {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-child-'));
  const file = join(dir, 'child.mjs');
  await esbuild.build({
    entryPoints: [fixture],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    logLevel: 'silent',
    // Bundled CommonJS dependencies (ioredis) call require(): give the ES module one.
    banner: { js: "import { createRequire as __childRequire } from 'node:module'; const require = __childRequire(import.meta.url);" },
  });
  return { file, dir };
}

/** The children of the TypeScript fixture at `fixture` (an absolute path), bundled at the first start. */
export function childProcesses(fixture: string): ChildProcesses {
  let bundled: Promise<{ file: string; dir: string }> | undefined;
  return {
    start: async (env) => forkChild((await (bundled ??= bundle(fixture))).file, env),
    async cleanup() {
      if (bundled === undefined) return;
      const { dir } = await bundled;
      rmSync(dir, { recursive: true, force: true });
      bundled = undefined;
    },
  };
}

const journalChildren = childProcesses(FIXTURE);

/** Removes the journal child's bundle. */
export const cleanupChildren = (): Promise<void> => journalChildren.cleanup();

/** Starts a journal child with these environment variables (the fixture reads its role from them). */
export const startChild = (env: Record<string, string>): Promise<Child> => journalChildren.start(env);

function forkChild(file: string, env: Record<string, string>): Child {
  const child = fork(file, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: ChildMessage[] = [];
  const waiters: Array<{ matches: (m: ChildMessage) => boolean; resolve: (m: ChildMessage) => void }> = [];
  child.on('message', (m: ChildMessage) => {
    messages.push(m);
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]!.matches(m)) waiters.splice(i, 1)[0]!.resolve(m);
  });
  // 'close', not 'exit': 'exit' can come before the last messages of the IPC channel are read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    process: child,
    exited,
    next(type, where = () => true) {
      const matches = (m: ChildMessage): boolean => m.type === type && where(m);
      const seen = messages.find(matches);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<ChildMessage>((resolve, reject) => {
        waiters.push({ matches, resolve });
        void exited.then((code) => {
          const error = messages.find((m) => m.type === 'error');
          reject(new Error(`child exited (${code}) before '${type}'${error === undefined ? '' : `: ${String(error['message'])}`}`));
        });
      });
    },
    messages: (type) => messages.filter((m) => m.type === type),
    send(message) {
      if (child.connected) child.send(message);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
