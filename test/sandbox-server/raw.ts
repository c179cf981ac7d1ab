/**
 * A hand-written HTTP caller for the sandbox server, the way a team without the SDK signs: its
 * own HMAC (node:crypto, not the SDK's signer), plain `fetch`, every component overridable so a
 * test can make each mistake a user makes.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Sandbox, SandboxServer } from '../../src/testing/index.js';

/** What to sign and send; each field defaults to the correct value. */
export interface RawWrite {
  readonly method?: string;
  /** The path on the request line (with query). */
  readonly path: string;
  readonly body?: string;
  readonly member?: string;
  /** What the string-to-sign says, component by component, when it differs from what is sent. */
  readonly signed?: { method?: string; path?: string; timestamp?: string; nonce?: string; bodyHash?: string; separator?: string };
  readonly timestamp?: string;
  readonly nonce?: string;
  readonly key?: string;
  readonly encoding?: 'base64' | 'hex';
  readonly omit?: 'x-nonce' | 'x-timestamp' | 'x-signature';
}

/** The raw answer. */
export interface RawAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly requestId: string;
}

/** A caller bound to one served sandbox (its own token). */
export async function rawCaller(sandbox: Sandbox, server: SandboxServer): Promise<(w: RawWrite) => Promise<RawAnswer>> {
  const { clientId, apiKey, signingKey } = sandbox.credentials;
  // The token exchange is unsigned: the two credentials only.
  const tokenRes = await fetch(`${server.url}/v1/connect/token`, {
    method: 'POST',
    headers: { 'x-client-id': clientId, 'x-api-key': apiKey },
  });
  const { auth_token: token } = (await tokenRes.json()) as { auth_token: string };
  return async (w) => {
    const method = w.method ?? 'POST';
    const body = w.body ?? '';
    const timestamp = w.timestamp ?? String(Math.floor(sandbox.clock.signatureNow() / 1000));
    const nonce = w.nonce ?? randomUUID();
    const s = w.signed ?? {};
    const parts = [
      s.method ?? method,
      s.path ?? w.path,
      s.timestamp ?? timestamp,
      s.nonce ?? nonce,
      s.bodyHash ?? createHash('sha256').update(body).digest('hex'),
    ];
    const signature = createHmac('sha256', w.key ?? signingKey)
      .update(parts.join(s.separator ?? '\n'))
      .digest(w.encoding ?? 'base64');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-auth-token': `Bearer ${token}`,
      'x-idempotency-key': randomUUID(),
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': signature,
    };
    if (w.member !== undefined) headers['x-on-behalf-of'] = w.member;
    if (w.omit) delete headers[w.omit];
    const res = await fetch(`${server.url}${w.path}`, { method, headers, ...(body === '' ? {} : { body }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId: res.headers.get('x-request-id') ?? '' };
  };
}

/** GET of an admin route, as JSON. */
export async function adminGet<T = Record<string, unknown>>(server: SandboxServer, path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An admin call with a JSON body; resolves with the status and the parsed answer. */
export async function adminSend<T = Record<string, unknown>>(
  server: SandboxServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}
