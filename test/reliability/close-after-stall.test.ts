/**
 * `close()` after a call gave up on a stalled TLS handshake leaves nothing that keeps the process
 * alive: a child process makes the call, closes its client, and must exit on its own (its
 * in-process counterpart, test/core/close-after-stall.test.ts, drives the grace on a frozen clock).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startStalledServer, type LoopbackServer } from '../helpers/tls-servers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/close-after-stall.ts', import.meta.url));
/** A hang guard, not a speed bound: past it the child is killed and the test fails. */
const HANG_GUARD_MS = 60_000;

let stalled: LoopbackServer;
beforeEach(async () => {
  stalled = await startStalledServer();
});
afterEach(async () => {
  await stalled.close();
});

it('the process exits on its own after close(), with no timer left', async () => {
  const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, stalled.url], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: HANG_GUARD_MS,
        killSignal: 'SIGKILL',
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
  const diagnostics = `stdout: ${result.stdout}\nstderr: ${result.stderr}`;
  expect(result.signal, diagnostics).toBeNull();
  expect(result.code, diagnostics).toBe(0);
  expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).toEqual({ error: 'TimeoutError', sent: 'no', timersAfterClose: 0 });
  expect(stalled.connections).toBeGreaterThan(0);
});
