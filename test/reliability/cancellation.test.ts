/**
 * Cancellation: an aborted call stops waiting at once wherever it waits, and leaves no timer or
 * socket that keeps the process alive. Proven in a child process that must exit on its own.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/abort-and-exit.ts', import.meta.url));
/**
 * A hang guard, not a speed bound: the child takes a second or two, and anything an aborted call
 * left behind would keep it alive for its 10-minute waits. Past this it is killed and the test
 * fails. Generous, because a loaded machine may take long just to start it.
 */
const DEADLINE_MS = 60_000;

let server: WireServer;
let stuckToken: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  stuckToken = await startWireServer();
  const never = (): Promise<never> => new Promise<never>(() => undefined);
  server.on('POST', '/v1/exchange/orders', never);
  server.on('GET', '/v1/stall-body', { status: 200, body: { data: 'x'.repeat(100) }, stallBody: true });
  server.on('POST', '/v1/withdrawals', apiError(502, 'upstream_error'));
  server.on('POST', '/v1/limited', {
    status: 429,
    headers: { 'retry-after': '59' },
    body: { error: { code: 'rate_limited', message: 'slow down', retry_after: 59 } },
  });
  server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
  stuckToken.onToken(never);
});
afterEach(async () => {
  await server.close();
  await stuckToken.close();
});

function runChild(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: DEADLINE_MS,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('cancellation', () => {
  it(
    'aborted calls stop waiting at once (response, body, backoff, 429 pause, limiter, token) and the process exits on its own',
    async () => {
      const result = await runChild([server.url, stuckToken.url]);
      const diagnostics = `stdout: ${result.stdout}\nstderr: ${result.stderr}`;
      // Exited by itself (not killed at the deadline) and cleanly.
      expect(result.signal, diagnostics).toBeNull();
      expect(result.code, diagnostics).toBe(0);
      const report = JSON.parse(result.stdout.trim().split('\n').pop()!) as {
        outcomes: Array<{ scenario: string; settledAtOnce: boolean; error: string; idempotencyKey: string | undefined }>;
        activeAfterClose: string[];
      };
      expect(report.outcomes.map((o) => [o.scenario, o.error, o.settledAtOnce])).toEqual([
        ['response', 'AbortError', true],
        ['body', 'AbortError', true],
        ['backoff', 'AbortError', true],
        ['429 pause', 'AbortError', true],
        ['limiter', 'AbortError', true],
        ['token', 'AbortError', true],
      ]);
      // No timer was left behind once the clients were closed (sockets may still be closing).
      expect(report.activeAfterClose.filter((r) => r === 'Timeout')).toEqual([]);
      // Aborted writes name their key, so the caller can retry the same operation safely.
      for (const o of report.outcomes.filter((x) => ['response', 'backoff'].includes(x.scenario)))
        expect(o.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      // The backoff scenario was aborted while sleeping, after exactly one attempt.
      expect(server.calls().filter((c) => c.url === '/v1/withdrawals')).toHaveLength(1);
      // The 429 pause scenario never sent its call (only the call that drew the 429 went out).
      expect(server.calls().filter((c) => c.url === '/v1/limited')).toHaveLength(1);
      // The limiter scenario never sent its second call.
      expect(server.calls().filter((c) => c.url === '/v1/assets')).toHaveLength(1);
    },
    DEADLINE_MS + 10_000,
  );

  it('a token exchange wanted only by aborted calls is abandoned; one still wanted goes on', async () => {
    const token = (name: string): Reply => ({
      body: { auth_token: name, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    });
    let release: ((r: Reply) => void) | undefined;
    // Each exchange's arrival at the server is an event the test awaits.
    const arrived: Array<() => void> = [];
    const exchanges = [0, 1].map(() => new Promise<void>((r) => arrived.push(r)));
    stuckToken.onToken((_req, n) => {
      arrived[n]?.();
      return n === 0 ? new Promise<never>(() => undefined) : n === 1 ? new Promise<Reply>((r) => (release = r)) : token(`tok_${n}`);
    });
    stuckToken.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    const client = wireClient(stuckToken.url);

    // Two callers wait for the first exchange; both abort: the exchange is abandoned.
    const c1 = new AbortController();
    const c2 = new AbortController();
    const p1 = client.assets.list({}, { signal: c1.signal }).then(null, (e: unknown) => e);
    const p2 = client.assets.list({}, { signal: c2.signal }).then(null, (e: unknown) => e);
    await exchanges[0];
    expect(stuckToken.tokenExchanges()).toBe(1);
    c1.abort();
    expect(await p1).toBeInstanceOf(AbortError);
    c2.abort();
    expect(await p2).toBeInstanceOf(AbortError);

    // The next caller starts a fresh exchange instead of joining the abandoned one. A caller
    // without a signal keeps it going when another caller aborts.
    const c3 = new AbortController();
    const p3 = client.assets.list({}, { signal: c3.signal }).then(null, (e: unknown) => e);
    const p4 = Promise.resolve(client.assets.list());
    await exchanges[1];
    expect(stuckToken.tokenExchanges()).toBe(2);
    c3.abort();
    expect(await p3).toBeInstanceOf(AbortError);
    release!(token('tok_second'));
    await expect(p4).resolves.toMatchObject({ has_more: false });
    expect(stuckToken.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_second']);
    expect(stuckToken.tokenExchanges()).toBe(2);
    await client.close();
  });
});
