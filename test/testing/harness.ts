/**
 * Test-side client for the simulator. Signing is written here from the spec's five-line recipe
 * with node:crypto, independently of both the SDK and the simulator's verifier.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Sandbox, SandboxResponse } from '../../src/testing/index.js';

/** A response with its parsed JSON body (undefined when not JSON). */
export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON of many shapes, read field by field in assertions
}

/** Sends a raw request somewhere (sandbox.handle or a socket). */
export type Send = (req: { method: string; url: string; headers: Record<string, string>; body: string }) => Promise<SandboxResponse>;

/** The spec's signature: base64 HMAC-SHA256 over METHOD\npath?query\nts\nnonce\nsha256hex(body). */
export function signHeaders(
  signingKey: string,
  method: string,
  pathWithQuery: string,
  body: string,
  ts: string,
  nonce: string,
): Record<string, string> {
  const bodyHash = createHash('sha256').update(Buffer.from(body, 'utf8')).digest('hex');
  const signingString = `${method.toUpperCase()}\n${pathWithQuery}\n${ts}\n${nonce}\n${bodyHash}`;
  const signature = createHmac('sha256', signingKey).update(signingString, 'utf8').digest('base64');
  return { 'x-timestamp': ts, 'x-nonce': nonce, 'x-signature': signature };
}

/**
 * Headers of a token exchange: the two credentials, nothing else (the exchange is unsigned: the
 * signing key is never used for it); `credentials` default to the sandbox key's.
 */
export function exchangeHeaders(
  sandbox: Sandbox,
  credentials: { clientId: string; apiKey: string } = sandbox.credentials,
): Record<string, string> {
  return { 'x-client-id': credentials.clientId, 'x-api-key': credentials.apiKey };
}

/** Transport over `sandbox.handle()`. */
export function viaHandle(sandbox: Sandbox): Send {
  return (req) => sandbox.handle(req);
}

/** Transport over a real socket with fetch. */
export function viaFetch(baseUrl: string): Send {
  return async (req) => {
    const res = await fetch(baseUrl + req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: req.body }),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k] = v;
    });
    return { status: res.status, headers, body: await res.text() };
  };
}

/** Options of one request. */
export interface CallOptions {
  body?: unknown;
  /** Raw body text, sent and signed exactly. */
  rawBody?: string;
  member?: string;
  /** `true` for a fresh UUID, a string to reuse one, `false`/absent for none. */
  key?: string | boolean;
  headers?: Record<string, string>;
  /** Skip the token header. */
  noToken?: boolean;
  /** Skip signing. */
  noSign?: boolean;
  /** Override the timestamp (Unix seconds as text) or nonce. */
  ts?: string;
  nonce?: string;
}

/** A small signed-request client for tests. */
export class TestClient {
  private token: string | undefined;
  /** Idempotency keys and nonces sent, oldest first. */
  readonly sent: Array<{ key?: string; nonce?: string }> = [];

  constructor(
    private readonly sandbox: Sandbox,
    private readonly send: Send,
  ) {}

  /** Exchanges credentials for a token (cached). */
  async auth(): Promise<string> {
    if (this.token) return this.token;
    const res = await this.send({ method: 'POST', url: '/v1/connect/token', headers: exchangeHeaders(this.sandbox), body: '' });
    if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${res.body}`);
    this.token = (JSON.parse(res.body) as { auth_token: string }).auth_token;
    return this.token;
  }

  /** Forgets the cached token. */
  forget(): void {
    this.token = undefined;
  }

  async call(method: string, path: string, o: CallOptions = {}): Promise<TestResponse> {
    const body = o.rawBody ?? (o.body === undefined ? (method === 'GET' ? '' : '{}') : JSON.stringify(o.body));
    const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
    if (!o.noToken) headers['x-auth-token'] = `Bearer ${await this.auth()}`;
    if (o.member !== undefined) headers['x-on-behalf-of'] = o.member;
    let key: string | undefined;
    if (o.key === true) key = randomUUID();
    else if (typeof o.key === 'string') key = o.key;
    if (key !== undefined) headers['x-idempotency-key'] = key;
    let nonce: string | undefined;
    if (method !== 'GET' && method !== 'HEAD' && !o.noSign) {
      nonce = o.nonce ?? randomUUID();
      const ts = o.ts ?? String(Math.floor(this.sandbox.clock.signatureNow() / 1000));
      Object.assign(headers, signHeaders(this.sandbox.credentials.signingKey, method, path, body, ts, nonce));
    }
    this.sent.push({ ...(key !== undefined ? { key } : {}), ...(nonce !== undefined ? { nonce } : {}) });
    const res = await this.send({ method, url: path, headers, body });
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text: res.body, json };
  }
}
