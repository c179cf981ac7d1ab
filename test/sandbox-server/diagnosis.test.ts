/**
 * Signature diagnosis over a real socket: a request signed with one mistake is refused with its
 * code, the message names the first component that differs and points to the admin route, and
 * the admin route gives what was received and the exact string-to-sign expected, never the key.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isApiError, MerchantClient } from '../../src/index.js';
import type { SignatureDiagnosis } from '../../src/testing/index.js';
import { servedWorlds, thrownBy } from '../testing/served.js';
import { adminGet, rawCaller, type RawWrite } from './raw.js';

const serve = servedWorlds();
const W = '/v1/withdrawals';
const BODY = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'TQ7x1Vb9' });

interface Entry {
  requestId: string;
  status: number;
  code: string;
  diagnosis?: SignatureDiagnosis;
}

/** Sends one write with a mistake; returns the answer and the admin API's entry for it. */
async function refused(write: Omit<RawWrite, 'member' | 'body'> & { body?: string }) {
  const { sandbox, server } = await serve();
  sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
  const call = await rawCaller(sandbox, server);
  const answer = await call({ body: BODY, member: 'alice', ...write });
  const entry = await adminGet<Entry>(server, `/__sandbox/requests/${answer.requestId}`);
  return { sandbox, server, answer, entry, diagnosis: entry.diagnosis! };
}

describe('the first component that differs is named, found by trying variants against the signature', () => {
  it('path: a signed path without the query the request line carries', async () => {
    const { answer, entry, diagnosis, sandbox } = await refused({ path: `${W}?x=1`, signed: { path: W } });
    expect(answer.status).toBe(401);
    expect(answer.body['code']).toBe('invalid_signature');
    expect(diagnosis.component).toBe('path');
    expect(diagnosis.message).toBe(`path: you signed ${W}, the request line was ${W}?x=1`);
    expect(answer.body['message']).toContain(diagnosis.message);
    expect(answer.body['message']).toContain(`GET /__sandbox/requests/${answer.requestId}`);
    expect(entry).toMatchObject({ status: 401, code: 'invalid_signature' });
    const hash = createHash('sha256').update(BODY).digest('hex');
    expect(diagnosis.received).toMatchObject({ method: 'POST', path: `${W}?x=1`, bodySha256: hash });
    const { timestamp, nonce } = diagnosis.received;
    expect(diagnosis.expectedStringToSign).toBe(['POST', `${W}?x=1`, timestamp, nonce, hash].join('\n'));
    expect(JSON.stringify(entry)).not.toContain(sandbox.credentials.signingKey);
    expect(sandbox.state.countEffects()).toBe(0);
  });

  it.each<[string, Omit<RawWrite, 'path' | 'member' | 'body'> & { path?: string; body?: string }, SignatureDiagnosis['component'], RegExp]>(
    [
      ['lowercase method', { signed: { method: 'post' } }, 'method', /^method: you signed post, the request was POST/],
      [
        'reordered query',
        { path: `${W}?b=2&a=1`, signed: { path: `${W}?a=1&b=2` } },
        'path',
        /you signed \/v1\/withdrawals\?a=1&b=2, the request line was \/v1\/withdrawals\?b=2&a=1/,
      ],
      [
        'milliseconds signed, seconds sent',
        { signed: { timestamp: 'MS' } },
        'timestamp',
        /^timestamp: you signed \d+000, x-timestamp was \d+/,
      ],
      [
        'hash of an empty body',
        { signed: { bodyHash: createHash('sha256').update('').digest('hex') } },
        'body',
        /^body: you signed the hash of an empty body, the request carried 53 bytes/,
      ],
      [
        'another serialization of the body',
        {
          signed: {
            bodyHash: createHash('sha256')
              .update(JSON.stringify(JSON.parse(BODY), null, 2))
              .digest('hex'),
          },
        },
        'body',
        /another serialization of the same JSON/,
      ],
      ['CRLF between components', { signed: { separator: '\r\n' } }, 'format', /joined the components with \\r\\n/],
      ['hex HMAC', { encoding: 'hex' }, 'encoding', /hex HMAC \(64 characters\); send its base64 \(44/],
    ],
  )('%s', async (_name, mistake, component, message) => {
    const { sandbox, server } = await serve();
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const call = await rawCaller(sandbox, server);
    // 'MS': one second sent as x-timestamp, and signed in milliseconds.
    const second = String(Math.floor(sandbox.clock.signatureNow() / 1000));
    const ms = { timestamp: second, signed: { timestamp: `${second}000` } };
    const write = { path: W, ...mistake, ...(mistake.signed?.timestamp === 'MS' ? ms : {}) };
    const answer = await call({ body: BODY, member: 'alice', ...write });
    expect(answer.body['code']).toBe('invalid_signature');
    const { diagnosis } = await adminGet<Entry>(server, `/__sandbox/requests/${answer.requestId}`);
    expect(diagnosis?.component).toBe(component);
    expect(diagnosis?.message).toMatch(message);
  });

  it('key: signed with the api key, named without showing either key', async () => {
    const { sandbox, server } = await serve();
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const call = await rawCaller(sandbox, server);
    const answer = await call({ path: W, body: BODY, member: 'alice', key: sandbox.credentials.apiKey });
    const entry = await adminGet<Entry>(server, `/__sandbox/requests/${answer.requestId}`);
    expect(entry.diagnosis?.component).toBe('key');
    const text = JSON.stringify(entry) + JSON.stringify(answer.body);
    expect(text).not.toContain(sandbox.credentials.apiKey);
    expect(text).not.toContain(sandbox.credentials.signingKey);
  });

  it('a wrong signing key matches no variant: unknown, with the hint and the expected string', async () => {
    const { diagnosis, answer } = await refused({ path: W, key: 'not-the-key' });
    expect(diagnosis.component).toBe('unknown');
    expect(diagnosis.message).toContain('check the signing key');
    expect(answer.body['message']).toContain('Diagnosis: GET /__sandbox/requests/');
  });

  it('headers: a missing x-nonce is named', async () => {
    const { diagnosis, answer } = await refused({ path: W, omit: 'x-nonce' });
    expect(answer.body['code']).toBe('invalid_signature');
    expect(diagnosis).toMatchObject({ component: 'headers', received: { nonce: null } });
    expect(diagnosis.message).toMatch(/^headers: x-nonce missing/);
  });
});

describe('timestamp and nonce refusals are diagnosed too', () => {
  it('timestamp_out_of_range: milliseconds sent, the distance to the signature clock given', async () => {
    const { sandbox, server } = await serve();
    // Business time moved a day: the distance is given to the signature clock, not to it.
    sandbox.clock.advance(86_400_000);
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const call = await rawCaller(sandbox, server);
    const lo = Math.floor(sandbox.clock.signatureNow() / 1000);
    const answer = await call({ path: W, body: BODY, member: 'alice', timestamp: String(sandbox.clock.signatureNow()) });
    const hi = Math.floor(sandbox.clock.signatureNow() / 1000);
    expect(answer.body['code']).toBe('timestamp_out_of_range');
    const { diagnosis } = await adminGet<Entry>(server, `/__sandbox/requests/${answer.requestId}`);
    expect(diagnosis).toMatchObject({ code: 'timestamp_out_of_range', component: 'timestamp' });
    const clockSecond = Number(/signature clock \((\d+)\)/.exec(diagnosis?.message ?? '')?.[1]);
    expect(clockSecond).toBeGreaterThanOrEqual(lo);
    expect(clockSecond).toBeLessThanOrEqual(hi);
    expect(diagnosis?.message).toContain('it looks like milliseconds');
  });

  it('nonce_reused: names the earlier request that used it', async () => {
    const { sandbox, server } = await serve();
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const call = await rawCaller(sandbox, server);
    const first = await call({ path: W, body: BODY, member: 'alice', nonce: 'n-1' });
    expect(first.status).toBe(201);
    const second = await call({ path: W, body: BODY, member: 'alice', nonce: 'n-1' });
    expect(second.body['code']).toBe('nonce_reused');
    const { diagnosis } = await adminGet<Entry>(server, `/__sandbox/requests/${second.requestId}`);
    expect(diagnosis?.component).toBe('nonce');
    expect(diagnosis?.message).toContain(`by request ${first.requestId} (POST ${W})`);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
  });
});

describe('the SDK caller sees the pointer in the error message', () => {
  it('a client with a wrong signing key gets invalid_signature whose message points to the diagnosis', async () => {
    const { sandbox, server } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
    const client = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials, signingKey: 'sk_wrong', maxRetries: 0 });
    try {
      const err = await thrownBy(() => client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }));
      expect(isApiError(err, 'invalid_signature')).toBe(true);
      expect((err as Error).message).toMatch(/Diagnosis: GET \/__sandbox\/requests\/req_/);
      const last = sandbox.requests.at(-1);
      expect(last?.diagnosis?.component).toBe('unknown');
      expect(last?.diagnosis?.received.signature).toHaveLength(44);
    } finally {
      await client.close();
    }
  });
});
