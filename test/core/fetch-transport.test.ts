/**
 * The fetch transport (the default on Bun, Deno, workerd and edge runtimes, and `transport:
 * 'fetch'` on Node) over a real socket: the body cap, the caller's abort, and what the client
 * puts on the wire whatever the transport.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, AcceptedButUnreadableError, ResponseValidationError } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer, ORDER, WITHDRAWAL } from '../helpers/wire-server.js';

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await server.close();
});

describe('the fetch transport', () => {
  it('refuses a 2xx body over maxResponseBytes as accepted but unreadable, with the key and status', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, padding: 'x'.repeat(4096) } });
    const client = wireClient(server.url, { transport: 'fetch', maxResponseBytes: 1024 });
    try {
      const err = await client
        .member('m')
        .withdrawals.create(WITHDRAWAL)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AcceptedButUnreadableError);
      expect((err as AcceptedButUnreadableError).status).toBe(201);
      expect((err as Error).message).toContain('exceeds 1024 bytes');
      expect((err as AcceptedButUnreadableError).idempotencyKey).toBe(server.calls()[0]?.headers['x-idempotency-key']);
    } finally {
      await client.close();
    }
    expect(server.calls()).toHaveLength(1);
  });

  it('rejects with AbortError when the caller aborts while the request is at the service', async () => {
    const controller = new AbortController();
    server.on('POST', '/v1/withdrawals', () => {
      // The request has reached the service: abort now, answer later.
      controller.abort(new Error('shutting down'));
      return { status: 201, body: ORDER, delayMs: 200 };
    });
    const client = wireClient(server.url, { transport: 'fetch' });
    try {
      const err = await client
        .member('m')
        .withdrawals.create(WITHDRAWAL, { signal: controller.signal })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AbortError);
    } finally {
      await client.close();
    }
    expect(server.calls()).toHaveLength(1);
  });
});

describe('what every transport puts on the wire', () => {
  it('appends userAgentSuffix without its control characters, so it cannot add a header', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    for (const transport of ['fetch', undefined] as const) {
      const client = wireClient(server.url, { transport, userAgentSuffix: 'shop/1.0\r\nx-evil: 1' });
      expect(client.baseUrl).toBe(server.url);
      await client.member('m').withdrawals.create(WITHDRAWAL);
      await client.close();
      const call = server.calls().at(-1);
      expect(call?.headers['user-agent']).toMatch(/ shop\/1\.0x-evil: 1$/);
      expect(call?.headers['x-evil']).toBeUndefined();
    }
  });

  it('names an array where the documented shape has a string, in the validation issue', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: { ...ORDER, amount: ['25.50'] } });
    const client = wireClient(server.url, { transport: 'fetch' });
    try {
      const err = await client
        .member('m')
        .withdrawals.create(WITHDRAWAL)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseValidationError);
      expect((err as ResponseValidationError).issues).toEqual([
        { path: ['amount'], message: 'Invalid input: expected string, received array' },
      ]);
    } finally {
      await client.close();
    }
  });
});
