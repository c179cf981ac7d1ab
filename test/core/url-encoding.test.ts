/**
 * The path and query the client sends (spec: Authentication > Signatures: the path with its query
 * string is signed "exactly as sent, including parameter order and percent-encoding"): what ids
 * and parameters become on the wire, and which ones are refused before anything is sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/**
 * What a call refused before sending rejected with: never a synchronous throw (every method that
 * returns a promise reports bad input through it).
 */
async function refusal(call: () => PromiseLike<unknown>): Promise<InvalidArgumentError> {
  let p: PromiseLike<unknown>;
  try {
    p = call();
  } catch (e) {
    throw new Error(`the call threw synchronously instead of rejecting: ${String(e)}`, { cause: e });
  }
  return refused(() => p);
}

async function refused(call: () => PromiseLike<unknown>): Promise<InvalidArgumentError> {
  const err = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (err instanceof InvalidArgumentError) return err;
  throw new Error(`expected an InvalidArgumentError, got ${String(err)}`);
}

describe('ids in the path', () => {
  it("are percent-encoded strictly: !'()* too, so the string signed is the string sent", async () => {
    server.on('GET', '/v1/reports/r%21%27%28%29%2A~-._', { body: { id: 'r' } });
    await client.reports.retrieve("r!'()*~-._");
    const [req] = server.calls();
    expect(req!.url).toBe('/v1/reports/r%21%27%28%29%2A~-._');
  });

  it('a signed write with such an id verifies on the other side', async () => {
    server.on('POST', '/v1/cards/c%28x%29/unfreeze', { body: { id: 'c(x)', status: 'active' } });
    await client.member('m').cards.unfreeze('c(x)');
    expect(server.calls()[0]!.signatureValid).toBe(true);
  });

  it('"." and ".." are refused (dot segments to every URL parser); other dots are kept', async () => {
    for (const id of ['.', '..']) {
      const err = await refused(() => client.reports.retrieve(id));
      expect(err.argument).toBe('id');
      expect(err.message).toBe('id: cannot be "." or "..".');
    }
    server.on('GET', '/v1/reports/...', { body: { id: '...' } });
    server.on('GET', '/v1/reports/.a', { body: { id: '.a' } });
    await client.reports.retrieve('...');
    await client.reports.retrieve('.a');
    expect(server.calls().map((c) => c.url)).toEqual(['/v1/reports/...', '/v1/reports/.a']);
  });

  it('control characters and text that is not valid Unicode are refused', async () => {
    for (const id of ['a\u0000b', 'a\nb', 'a\u001fb', 'a\u007fb']) {
      const err = await refused(() => client.reports.retrieve(id));
      expect(err.message, JSON.stringify(id)).toBe('id: must not contain control characters.');
    }
    for (const id of ['a\ud800b', '\udc00']) {
      const err = await refused(() => client.reports.retrieve(id));
      expect(err.message).toBe('id: is not valid Unicode text.');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a raw request path is never filled in: a {placeholder} in it is refused', async () => {
    const err = await refused(() => client.request({ method: 'GET', path: '/v1/reports/{id}' }));
    expect(err.argument).toBe('id');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the query string', () => {
  it('keeps the order given, skips undefined values, and writes numbers and booleans as text', async () => {
    server.on('GET', '/v1/assets', { body: {} });
    await client.request({
      method: 'GET',
      path: '/v1/assets',
      query: { z: 'last?', skipped: undefined, a: 1, 'b c': true, d: false, e: 0, f: '' },
    });
    expect(server.calls()[0]!.url).toBe('/v1/assets?z=last%3F&a=1&b%20c=true&d=false&e=0&f=');
  });

  it('the first parameter after a skipped one still starts with "?"', async () => {
    server.on('GET', '/v1/assets', { body: {} });
    await client.request({ method: 'GET', path: '/v1/assets', query: { skipped: undefined, a: "it's" } });
    expect(server.calls()[0]!.url).toBe('/v1/assets?a=it%27s');
  });

  it('no "?" at all when there is nothing to send', async () => {
    server.on('GET', '/v1/assets', { body: {} });
    await client.request({ method: 'GET', path: '/v1/assets', query: {} });
    await client.request({ method: 'GET', path: '/v1/assets', query: { a: undefined } });
    expect(server.calls().map((c) => c.url)).toEqual(['/v1/assets', '/v1/assets']);
  });
});

describe('raw request paths', () => {
  it('are sent exactly as given when they are printable ASCII', async () => {
    server.on('GET', "/v1/odd/a%20b~!$&'()*+,;=:@", { body: {} });
    await client.request({ method: 'GET', path: "/v1/odd/a%20b~!$&'()*+,;=:@" });
    expect(server.calls()[0]!.url).toBe("/v1/odd/a%20b~!$&'()*+,;=:@");
  });

  it('must start with "/" and hold no spaces, controls, non-ASCII or "#"', async () => {
    const start = await refusal(() => client.request({ method: 'GET', path: 'v1/assets' }));
    expect(start.message).toBe('path: must start with "/".');
    expect((await refusal(() => client.request({ method: 'GET', path: undefined as unknown as string }))).argument).toBe('path');
    for (const path of ['/v1/a b', '/v1/a\tb', '/v1/a\u007fb', '/v1/café', '/v1/a#b', '/v1/a\u0000']) {
      const err = await refusal(() => client.request({ method: 'GET', path }));
      expect(err.message, JSON.stringify(path)).toBe('path: must be percent-encoded ASCII without spaces or "#".');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a dot segment, plain or percent-encoded, or a backslash is refused before sending, on both transports', async () => {
    // What a fetch's URL parser would rewrite (/v1/a/../withdrawals becomes /v1/withdrawals): the
    // service would verify the signature over another path than the one signed.
    server.on('POST', '/v1/withdrawals', { status: 201, body: {} });
    const fetchClient = wireClient(server.url, { transport: 'fetch' });
    try {
      for (const c of [client, fetchClient]) {
        for (const path of [
          '/v1/a/../withdrawals',
          '/v1/./withdrawals',
          '/v1/a/%2e%2e/withdrawals',
          '/v1/a/%2E./withdrawals',
          '/v1/a/.%2e',
          '/v1/%2e/x',
        ]) {
          const err = await refusal(() => c.request({ method: 'POST', path, body: {} }));
          expect(err.argument, path).toBe('path');
          expect(err.message, path).toBe('path: must not contain "." or ".." segments, encoded or not (URL parsers resolve them).');
        }
        expect((await refusal(() => c.request({ method: 'POST', path: '/v1/a\\..\\withdrawals', body: {} }))).message).toBe(
          'path: must not contain "\\" (URL parsers read it as "/").',
        );
      }
      expect(server.requests).toHaveLength(0);
      // Dots inside a segment are no dot segment: sent as given.
      server.on('POST', '/v1/a..b/.x/...', { status: 201, body: {} });
      await fetchClient.request({ method: 'POST', path: '/v1/a..b/.x/...', body: {} });
      await client.request({ method: 'POST', path: '/v1/a..b/.x/...', body: {} });
      expect(server.calls().map((r) => r.url)).toEqual(['/v1/a..b/.x/...', '/v1/a..b/.x/...']);
    } finally {
      await fetchClient.close();
    }
  });
});
