/**
 * The sandbox command as a child process (`node --import tsx src/testing/bin.ts`), the way a user
 * runs it: its output lines are events to wait for, never a sleep.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach } from 'vitest';

/** A running (or finished) command. */
export interface CliRun {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves once stdout holds a line matching `pattern` (rejects if the process ends first). */
  line(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code once the process has ended. */
  exited(): Promise<number | null>;
}

const BIN = 'src/testing/bin.ts';

/**
 * Registers the kill of this file's children still running after each test (or, with `'all'`,
 * after the file, for a sandbox started in `beforeAll`) and returns the starter.
 */
export function cliRunner(cleanup: 'each' | 'all' = 'each'): (args: string[], env?: Record<string, string>) => CliRun {
  const running: ChildProcess[] = [];
  (cleanup === 'each' ? afterEach : afterAll)(async () => {
    for (const c of running.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await once(c, 'exit');
      }
    }
  });
  return (args, env = {}) => {
    // A clean environment: the developer's own MERCHANT_API_* or PORT must not leak in.
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('MERCHANT_API_') && k !== 'PORT' && k !== 'HOST'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let out = '';
    let err = '';
    const waiters: Array<() => void> = [];
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      for (const w of waiters.splice(0)) w();
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    return {
      child,
      stdout: () => out,
      stderr: () => err,
      async line(pattern) {
        for (;;) {
          const hit = out.split('\n').find((l) => pattern.test(l));
          if (hit !== undefined) return hit;
          const more = new Promise<void>((r) => waiters.push(r));
          const ended = await Promise.race([more.then(() => false), closed.then(() => true)]);
          if (ended && !out.split('\n').some((l) => pattern.test(l))) {
            throw new Error(`process ended (code ${child.exitCode}) before a line matching ${pattern}; stdout: ${out} stderr: ${err}`);
          }
        }
      },
      async exited() {
        const code = await exit;
        await closed;
        return code;
      },
    };
  };
}

/** The variables the command's banner may export. */
const EXPORTED = [
  'MERCHANT_API_BASE_URL',
  'MERCHANT_API_CLIENT_ID',
  'MERCHANT_API_KEY',
  'MERCHANT_API_SIGNING_KEY',
  'MERCHANT_WEBHOOK_SECRET',
  'MERCHANT_SANDBOX_ADMIN_TOKEN',
];

/**
 * The `export NAME=value` lines, evaluated by a real shell: what pasting them would set, in a
 * shell whose environment already holds `given` (the values the command was started with, which
 * it never prints). Variables set by neither are absent.
 */
export async function exportsViaShell(stdout: string, given: Record<string, string> = {}): Promise<Record<string, string>> {
  const names = EXPORTED;
  const script = `${stdout}\n${names.map((n) => `printf '%s\\0' "\${${n}-<unset>}"`).join('\n')}\n`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !names.includes(k)));
  const sh = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...clean, ...given } });
  let out = '';
  sh.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const [code] = (await once(sh, 'close')) as [number];
  if (code !== 0) throw new Error(`sh exited ${code}`);
  const values = out.split('\0');
  return Object.fromEntries(names.flatMap((n, i) => (values[i] === '<unset>' ? [] : [[n, values[i] ?? '']])));
}
