/**
 * `close()` after a call gave up on a connection that never completes (a TLS handshake the
 * server stalls): the pooled agent still holds the abandoned request and the connecting socket,
 * which undici alone would keep until its 10 s connect timeout. close() lets running attempts
 * end, gives the agent a short grace, then destroys what is left.
 *
 * On a frozen clock (timers and `performance` faked, I/O real): time moves only when the test
 * moves it, so "resolved after the grace, not at undici's connect timeout" is decided by the
 * clock the test drives, not by the machine's speed. The child-process test in
 * test/reliability/close-after-stall.test.ts checks the process then exits on its own.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { TimeoutError, type MerchantClient } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { until } from '../helpers/time.js';
import { startStalledServer, type LoopbackServer } from '../helpers/tls-servers.js';
import { ORDER, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

let stalled: LoopbackServer | undefined;
let server: WireServer | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await stalled?.close();
  await server?.close();
});

it('close() after a call gave up on a stalled TLS handshake resolves after its short grace and drops the connecting socket', async () => {
  stalled = await startStalledServer();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  client = wireClient(stalled.url, { timeoutMs: 200, maxRetries: 0 });
  const err = failure(client.member('m').withdrawals.create(WITHDRAWAL));
  await until(() => stalled!.connections === 1);
  await vi.advanceTimersByTimeAsync(200);
  expect(await err).toBeInstanceOf(TimeoutError);
  expect(stalled.open).toBe(1);

  let closed = false;
  void client.close().then(() => (closed = true));
  // The grace (1 s), far short of undici's 10 s connect timeout.
  await vi.advanceTimersByTimeAsync(1000);
  await until(() => closed);
  await until(() => stalled!.open === 0);
});

it('close() waits for an attempt still running, then closes at once: nothing is cut short', async () => {
  server = await startWireServer();
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  server.on('POST', '/v1/withdrawals', async () => {
    await held;
    return { status: 201, body: ORDER };
  });
  client = wireClient(server.url);
  const call = client.member('m').withdrawals.create(WITHDRAWAL);
  await until(() => server!.calls().length === 1);
  let closed = false;
  const closing = client.close().then(() => (closed = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(closed).toBe(false);
  answer();
  expect((await call).id).toBe('wdr_1');
  await closing;
  // Closed: a later call fails without reaching the server.
  await expect(client.member('m').withdrawals.create(WITHDRAWAL, { maxRetries: 0 })).rejects.toMatchObject({ call: { sent: 'no' } });
  expect(server.calls()).toHaveLength(1);
});
