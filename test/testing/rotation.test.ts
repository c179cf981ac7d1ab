/**
 * `sandbox.rotateCredentials({ overlapMs })` in process: during the overlap both keys work (token
 * exchange, tokens issued to either, each signed with its own key's signing key); at the cut,
 * stepped on the sandbox clock with no real wait, the old key gets `invalid_credentials`, its
 * tokens `invalid_token`, and the new key works throughout. `reset()` brings the initial key back.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxCredentials } from '../../src/testing/index.js';
import { exchangeHeaders, signHeaders } from './harness.js';

/** The code of an answer, or `ok` for a 200. */
async function outcome(res: Promise<{ status: number; body: string | Uint8Array }>): Promise<string> {
  const r = await res;
  if (r.status === 200) return 'ok';
  return (JSON.parse(String(r.body)) as { code: string }).code;
}

/** A token exchange with `credentials`: its code, and the token when it worked. */
async function exchange(sb: Sandbox, credentials: SandboxCredentials): Promise<{ code: string; token: string }> {
  const r = await sb.handle({ method: 'POST', url: '/v1/connect/token', headers: exchangeHeaders(sb, credentials) });
  if (r.status !== 200) return { code: (JSON.parse(String(r.body)) as { code: string }).code, token: '' };
  return { code: 'ok', token: (JSON.parse(String(r.body)) as { auth_token: string }).auth_token };
}

/** A read with `token`. */
function read(sb: Sandbox, token: string): Promise<string> {
  return outcome(sb.handle({ method: 'GET', url: '/v1/assets', headers: { 'x-auth-token': `Bearer ${token}` } }));
}

/** A signed faucet credit with `token`, signed with `signingKey`. */
function write(sb: Sandbox, token: string, signingKey: string): Promise<string> {
  const body = JSON.stringify({ asset: 'USDT', amount: '1' });
  const ts = String(Math.floor(sb.clock.signatureNow() / 1000));
  const headers = {
    'content-type': 'application/json',
    'x-auth-token': `Bearer ${token}`,
    'x-idempotency-key': randomUUID(),
    ...signHeaders(signingKey, 'POST', '/v1/sandbox/faucet', body, ts, randomUUID()),
  };
  return outcome(sb.handle({ method: 'POST', url: '/v1/sandbox/faucet', headers, body }));
}

describe('rotateCredentials with an overlap', () => {
  it('accepts both keys and their tokens until the cut, then refuses the old key with no grace', async () => {
    const sb = createSandbox();
    sb.clock.freeze();
    const old = sb.credentials;
    const oldToken = (await exchange(sb, old)).token;
    const next = sb.rotateCredentials({ overlapMs: 60_000 });

    expect(next.prevValidUntil).toBe(sb.clock.now() + 60_000);
    expect(next.clientId).toBe(old.clientId);
    expect(next.apiKey).not.toBe(old.apiKey);
    expect(next.signingKey).not.toBe(old.signingKey);
    // prevValidUntil is not enumerable: the rotation spreads into a client's options as the three credentials.
    expect({ ...next }).toEqual(sb.credentials);

    // The overlap: the old key exchanges, its tokens read and write (signed with the old key).
    const oldLate = await exchange(sb, old);
    expect(oldLate.code).toBe('ok');
    const newToken = (await exchange(sb, next)).token;
    for (const token of [oldToken, oldLate.token]) {
      expect(await read(sb, token)).toBe('ok');
      expect(await write(sb, token, old.signingKey)).toBe('ok');
    }
    expect(await read(sb, newToken)).toBe('ok');
    expect(await write(sb, newToken, next.signingKey)).toBe('ok');
    // A token and its signing key are one pair: crossing them is a signature mismatch.
    expect(await write(sb, oldToken, next.signingKey)).toBe('invalid_signature');
    expect(await write(sb, newToken, old.signingKey)).toBe('invalid_signature');

    // One millisecond before the cut the old key still works; at the cut exactly it does not.
    sb.clock.advance(59_999);
    expect(await read(sb, oldToken)).toBe('ok');
    sb.clock.advance(1);
    expect((await exchange(sb, old)).code).toBe('invalid_credentials');
    expect(await read(sb, oldToken)).toBe('invalid_token');
    expect(await read(sb, oldLate.token)).toBe('invalid_token');
    expect(await write(sb, oldLate.token, old.signingKey)).toBe('invalid_token');
    expect(await read(sb, newToken)).toBe('ok');
    expect(await write(sb, newToken, next.signingKey)).toBe('ok');
    expect((await exchange(sb, next)).code).toBe('ok');
    // The four accepted writes executed, the refused ones did not.
    expect(sb.state.countEffects('faucet.credit')).toBe(4);
  });

  it('with sandbox.client(): the old client works through the overlap and is refused at the cut; the new one throughout', async () => {
    const sb = createSandbox();
    sb.clock.freeze();
    const before = sb.client();
    await before.sandbox.faucet({ asset: 'USDT', amount: '1' });
    sb.rotateCredentials({ overlapMs: 30_000 });
    const after = sb.client();
    await before.sandbox.faucet({ asset: 'USDT', amount: '1' });
    await after.sandbox.faucet({ asset: 'USDT', amount: '1' });
    sb.clock.advance(30_000);
    const err = await before.sandbox.faucet({ asset: 'USDT', amount: '1' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'invalid_credentials')).toBe(true);
    await after.sandbox.faucet({ asset: 'USDT', amount: '1' });
    expect(sb.state.countEffects('faucet.credit')).toBe(4);
    await Promise.all([before.close(), after.close()]);
  });

  it('cuts at once by default, as before, and a second rotation ends the first overlap', async () => {
    const sb = createSandbox();
    sb.clock.freeze();
    const first = sb.credentials;
    const token = (await exchange(sb, first)).token;
    const second = sb.rotateCredentials();
    expect(second.prevValidUntil).toBe(sb.clock.now());
    expect((await exchange(sb, first)).code).toBe('invalid_credentials');
    expect(await read(sb, token)).toBe('invalid_token');

    const secondToken = (await exchange(sb, second)).token;
    const third = sb.rotateCredentials({ overlapMs: 60_000 });
    sb.rotateCredentials({ overlapMs: 60_000 });
    // One key has one previous key: the second one's overlap ended with the third rotation.
    expect((await exchange(sb, second)).code).toBe('invalid_credentials');
    expect(await read(sb, secondToken)).toBe('invalid_token');
    expect((await exchange(sb, third)).code).toBe('ok');
  });

  it('gives a new client id when asked, takes given values, and refuses a bad overlap', async () => {
    const sb = createSandbox();
    const old = sb.credentials;
    const moved = sb.rotateCredentials({ overlapMs: 1_000, newClientId: true });
    expect(moved.clientId).toMatch(/^cli_sbx_[0-9a-f]+$/);
    expect(moved.clientId).not.toBe(old.clientId);
    expect((await exchange(sb, moved)).code).toBe('ok');
    expect((await exchange(sb, old)).code).toBe('ok');
    // The old client id with the new api key is neither key.
    expect((await exchange(sb, { ...moved, clientId: old.clientId })).code).toBe('invalid_credentials');

    const fixed = sb.rotateCredentials({ clientId: 'cli_fixed', apiKey: 'ak_fixed', signingKey: 'sk_fixed' });
    expect(fixed).toMatchObject({ clientId: 'cli_fixed', apiKey: 'ak_fixed', signingKey: 'sk_fixed' });
    expect(() => sb.rotateCredentials({ overlapMs: -1 })).toThrow(/overlapMs/);
    expect(() => sb.rotateCredentials({ overlapMs: Number.NaN })).toThrow(/overlapMs/);
    expect(() => sb.rotateCredentials({ clientId: 'x', newClientId: true })).toThrow(/not both/);
  });

  it('a disabled key refuses both keys during the overlap', async () => {
    const sb = createSandbox();
    const old = sb.credentials;
    const next = sb.rotateCredentials({ overlapMs: 60_000 });
    sb.disableKey();
    expect((await exchange(sb, old)).code).toBe('invalid_credentials');
    expect((await exchange(sb, next)).code).toBe('invalid_credentials');
    sb.enableKey();
    expect((await exchange(sb, old)).code).toBe('ok');
  });

  it('reset() brings the initial credentials back and ends the overlap', async () => {
    const sb = createSandbox({ clientId: 'cli_start', apiKey: 'ak_start', signingKey: 'sk_start' });
    const initial = sb.credentials;
    const next = sb.rotateCredentials({ overlapMs: 60_000, newClientId: true });
    const token = (await exchange(sb, next)).token;
    sb.reset();
    expect(sb.credentials).toEqual(initial);
    expect((await exchange(sb, initial)).code).toBe('ok');
    expect((await exchange(sb, next)).code).toBe('invalid_credentials');
    expect(await read(sb, token)).toBe('invalid_token');
  });
});
