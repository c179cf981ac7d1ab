/**
 * A client built in a browser page (a `window` and a `document`, no server runtime) is refused
 * with a typed error saying why, unless `dangerouslyAllowBrowser: true`; workers, server
 * runtimes and Node test environments with a DOM (jsdom, happy-dom) are not browsers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, MerchantClient } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { ORDER, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
});
afterEach(async () => {
  vi.unstubAllGlobals();
  await server.close();
});

/** A browser page's globals: a window and its document, and no Node `process` (nor Bun or Deno). */
function browserPage(): void {
  vi.stubGlobal('window', { location: { href: 'https://shop.example/checkout' } });
  vi.stubGlobal('document', { title: 'checkout' });
  vi.stubGlobal('process', undefined);
}

const nodeProcess = process;

/**
 * Gives `process` back once the client is built (the guard reads the globals at construction):
 * vitest's own worker calls `process.nextTick` while a test awaits, and finds nothing on a
 * loaded machine if `process` is still gone.
 */
function processBack(): void {
  vi.stubGlobal('process', nodeProcess);
}

describe('in a browser page', () => {
  it('building a client throws InvalidArgumentError naming dangerouslyAllowBrowser and the keys it would expose', async () => {
    browserPage();
    const err = await failure(Promise.resolve().then(() => wireClient(server.url)));
    processBack();
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('dangerouslyAllowBrowser');
    expect((err as Error).message).toMatch(/API key and the signing key/);
    expect((err as Error).message).toMatch(/from your server/);
    // Before any setting is read: the refusal, not a missing credential, is what the page learns.
    browserPage();
    expect(() => new MerchantClient()).toThrow(/dangerouslyAllowBrowser/);
    processBack();
    expect(server.requests).toHaveLength(0);
  });

  it('with dangerouslyAllowBrowser: true the client is built and calls the service', async () => {
    browserPage();
    const client = wireClient(server.url, { dangerouslyAllowBrowser: true, transport: 'fetch' });
    processBack();
    const order = await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.close();
    expect(order.id).toBe('wdr_1');
    expect(server.calls()[0]?.signatureValid).toBe(true);
  });
});

describe('not a browser page', () => {
  it.each([
    ['a web worker (no window, no document, no process)', { self: {}, importScripts: () => undefined, process: undefined }],
    ['Node with a DOM in a test (jsdom, happy-dom)', { window: {}, document: {} }],
    ['Deno 1 (a window, no document)', { window: {}, Deno: { version: { deno: '1.46.3' } } }],
    ['Bun with a DOM library', { window: {}, document: {}, Bun: { version: '1.4.5' } }],
  ])('%s: the client is built', async (_name, globals) => {
    for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value);
    const client = wireClient(server.url, { transport: 'fetch' });
    processBack();
    await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.close();
    expect(server.calls()).toHaveLength(1);
  });
});
