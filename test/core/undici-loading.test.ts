/**
 * How the Node transport loads undici on the first call: its `Agent` module alone (a third of
 * the package's load time, which is most of a cold start), else the whole package should that
 * path move in a later undici, else Node's own `fetch`. Observed on the wire: undici asks for
 * `identity` encoding, Node's `fetch` offers compression.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ORDER, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
beforeEach(async () => {
  vi.resetModules();
  server = await startWireServer();
  server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
});
afterEach(async () => {
  vi.doUnmock('undici/lib/dispatcher/agent.js');
  vi.doUnmock('undici/lib/handler/unwrap-handler.js');
  vi.doUnmock('undici');
  await server.close();
});

/** A fresh copy of the SDK (undici not loaded yet), one call, and the encoding it asked for. */
async function firstCall(): Promise<string | undefined> {
  const { wireClient } = await import('../helpers/client.js');
  const client = wireClient(server.url);
  try {
    await client.member('m').withdrawals.create(WITHDRAWAL);
  } finally {
    await client.close();
  }
  return server.calls()[0]?.headers['accept-encoding'];
}

const gone = (): never => {
  throw new Error('Cannot find module');
};

describe('undici on the first call', () => {
  it('loads its Agent module, not the package index', async () => {
    const index = vi.fn();
    vi.doMock('undici', () => {
      index();
      return {};
    });
    expect(await firstCall()).toBe('identity');
    expect(index).not.toHaveBeenCalled();
  });

  it('falls back to the package index when the Agent path is gone (or is not undici 7)', async () => {
    const index = vi.fn();
    vi.doMock('undici/lib/handler/unwrap-handler.js', gone);
    vi.doMock('undici', async (importOriginal) => {
      index();
      return importOriginal();
    });
    expect(await firstCall()).toBe('identity');
    expect(index).toHaveBeenCalledTimes(1);
  });

  it("falls back to Node's fetch when neither loads", async () => {
    vi.doMock('undici/lib/dispatcher/agent.js', gone);
    vi.doMock('undici', gone);
    expect(await firstCall()).not.toBe('identity');
  });
});
