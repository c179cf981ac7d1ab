/**
 * The proxy recipes of docs/going-to-production.md (Proxies), through a real CONNECT proxy on
 * loopback: undici's `ProxyAgent` and `EnvHttpProxyAgent` (with `NO_PROXY`), a proxy refusing the
 * tunnel, and the warning when a proxy variable is set but no dispatcher reads it.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { EnvHttpProxyAgent, ProxyAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { proxyEnvNotice as webBuildNotice } from '../../src/core/platform/web.js';
import { ConnectionError } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { ORDER, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

/** A CONNECT proxy: tunnels to the host named, or refuses with `refuse` (e.g. 407); records each line. */
interface Proxy {
  readonly url: string;
  /** Each CONNECT request line's target (`host:port`). */
  readonly connects: string[];
  /** Requests sent to the proxy in clear (an HTTP proxy's other mode), which must stay empty. */
  readonly plain: string[];
  refuse: string | undefined;
  close(): Promise<void>;
}

async function startProxy(): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const proxy: Omit<Proxy, 'url' | 'close'> = { connects: [], plain: [], refuse: undefined };
  const server: Server = createServer((req, res) => {
    proxy.plain.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    proxy.connects.push(req.url ?? '');
    if (proxy.refuse !== undefined) {
      client.end(`HTTP/1.1 ${proxy.refuse}\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

let server: WireServer;
let proxy: Proxy;
beforeEach(async () => {
  server = await startWireServer();
  server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
  server.on('GET', '/v1/assets', { body: { data: [] } });
  proxy = await startProxy();
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) vi.stubEnv(name, undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await proxy.close();
  await server.close();
});

/** The wire server's `host:port`, as a CONNECT line names it. */
const target = (): string => new URL(server.url).host;

describe('through a CONNECT proxy', () => {
  it('ProxyAgent: every request goes through the tunnel, signed bytes unchanged; the proxy sees only CONNECT lines', async () => {
    const client = wireClient(server.url, { dispatcher: new ProxyAgent(proxy.url) });
    await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.request({ method: 'GET', path: '/v1/assets' });
    await client.close();
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/connect/token', '/v1/withdrawals', '/v1/assets']);
    expect(server.calls()[0]?.signatureValid).toBe(true);
    expect(proxy.connects.length).toBeGreaterThanOrEqual(1);
    expect(proxy.connects.length).toBeLessThanOrEqual(3);
    expect(new Set(proxy.connects)).toEqual(new Set([target()]));
    expect(proxy.plain).toEqual([]);
  });

  it('EnvHttpProxyAgent: HTTP_PROXY for an http base URL; NO_PROXY sends the host direct', async () => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    const proxied = wireClient(server.url, { dispatcher: new EnvHttpProxyAgent() });
    await proxied.member('m').withdrawals.create(WITHDRAWAL);
    await proxied.close();
    expect(new Set(proxy.connects)).toEqual(new Set([target()]));
    const connects = proxy.connects.length;
    vi.stubEnv('NO_PROXY', 'localhost,127.0.0.1');
    const direct = wireClient(server.url, { dispatcher: new EnvHttpProxyAgent() });
    await direct.member('m').withdrawals.create(WITHDRAWAL);
    await direct.close();
    expect(proxy.connects).toHaveLength(connects);
    expect(server.calls()).toHaveLength(2);
  });

  it('a proxy refusing the tunnel (407): ConnectionError quoting its status, nothing sent', async () => {
    proxy.refuse = '407 Proxy Authentication Required';
    const client = wireClient(server.url, { dispatcher: new ProxyAgent(proxy.url), maxRetries: 0 });
    const err = await failure(client.member('m').withdrawals.create(WITHDRAWAL));
    await client.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).message).toContain('407');
    expect((err as ConnectionError).call?.sent).toBe('no');
    expect(server.requests).toEqual([]);
    expect(proxy.connects).toEqual([target()]);
  });
});

describe('a proxy variable that no dispatcher reads', () => {
  it('is named in one warning at construction, and the requests go direct', async () => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    const warnings: string[] = [];
    const client = wireClient(server.url, { logger: { warn: (message) => void warnings.push(message) } });
    await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^HTTP_PROXY is set, but the client's default transport does not read it/);
    expect(warnings[0]).toContain('new EnvHttpProxyAgent()');
    expect(proxy.connects).toEqual([]);
  });

  it("is not given by the build for Bun, Deno and workerd: Bun's and Deno's fetch read the variable", () => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    vi.stubEnv('HTTPS_PROXY', proxy.url);
    expect(webBuildNotice({}, server.url)).toBeUndefined();
  });

  it.each([
    ['NO_PROXY covers the host', { NO_PROXY: 'example.com, 127.0.0.1' }, {}],
    ['a dispatcher was given', {}, { dispatcher: new ProxyAgent('http://127.0.0.1:9') }],
    ['another scheme (HTTPS_PROXY for an http base URL)', { HTTP_PROXY: '', HTTPS_PROXY: 'http://127.0.0.1:9' }, {}],
  ])('says nothing when %s', (_name, env, options) => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const warnings: string[] = [];
    const client = wireClient(server.url, { logger: { warn: (message) => void warnings.push(message) }, ...options });
    expect(warnings).toEqual([]);
    void client.close();
  });
});
