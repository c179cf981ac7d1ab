/**
 * The inspector page at GET /__sandbox/, read without a browser: no browser can be installed by
 * `npm ci` alone on this project's machines, and the page has no script, so a strict parse of the
 * HTML it serves over a real socket is what a browser would render. Checked: well-formed,
 * self-contained (no script, no external resource), every section the issue lists, request
 * values escaped, no secret.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { servedWorlds } from '../testing/served.js';
import { findAll, parseHtml, tableRows, textOf } from './html.js';
import { rawCaller } from './raw.js';

const serve = servedWorlds();

describe('GET /__sandbox/', () => {
  it('shows requests newest first with status, code, member, key, replay and diagnosis; members with eight buckets; deliveries', async () => {
    const { sandbox, server, client } = await serve({ sandbox: { webhooks: { backoffMs: 1 } } });
    const alice = sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10', locked: '2' } } });
    const key = '6f1c1a52-2b5e-4c0e-9a43-3b1f2a7c9d10';
    await client.member('alice').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key });
    await client.member('alice').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key });
    const call = await rawCaller(sandbox, server);
    const body = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'T' });
    const bad = await call({ path: '/v1/withdrawals?x=1', body, member: 'alice', signed: { path: '/v1/withdrawals' } });
    // node:http sends the path as written (fetch would percent-encode it).
    await new Promise<void>((resolve, reject) => {
      const options = { host: '127.0.0.1', port: server.port, path: '/v1/<script>alert(1)</script>' };
      http.get(options, (r) => r.resume().on('end', resolve)).on('error', reject);
    });

    const hooks = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    try {
      sandbox.webhooks.register(`http://127.0.0.1:${(hooks.address() as AddressInfo).port}/h`);
      await sandbox.webhooks.emit('card.activated', { object: 'card', id: 'crd_9', status: 'active' });
    } finally {
      await new Promise<void>((r) => hooks.close(() => r()));
    }

    const res = await fetch(`${server.url}/__sandbox/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const doc = parseHtml(html);

    // Self-contained: nothing fetched from elsewhere, nothing run.
    expect(findAll(doc, (e) => e.tag === 'script' || e.tag === 'link' || e.tag === 'img' || e.tag === 'iframe')).toEqual([]);
    expect(findAll(doc, (e) => 'src' in e.attrs || (e.attrs['href'] ?? '').includes('//'))).toEqual([]);

    const requests = tableRows(doc, 'requests');
    // Columns: received, request id, method, path, status, code, member, key, replay, diagnosis.
    expect(requests.map((r) => [r[2], r[3], r[4], r[5], r[8]])).toEqual([
      ['GET', '/v1/<script>alert(1)</script>', '401', 'invalid_token', ''],
      ['POST', '/v1/withdrawals?x=1', '401', 'invalid_signature', ''],
      ['POST', '/v1/connect/token', '200', '', ''],
      ['POST', '/v1/withdrawals', '201', '', 'replay'],
      ['POST', '/v1/withdrawals', '201', '', ''],
      ['POST', '/v1/connect/token', '200', '', ''],
    ]);
    expect(requests[1]![1]).toBe(bad.requestId);
    expect(requests[1]![6]).toBe('alice');
    expect(requests[3]!.slice(6, 8)).toEqual(['alice', key]);
    expect(requests[1]![9]).toContain('path: you signed /v1/withdrawals, the request line was /v1/withdrawals?x=1');
    expect(requests[1]![9]).toContain('POST\n/v1/withdrawals?x=1\n');

    const members = tableRows(doc, 'members');
    expect(members).toEqual([
      [
        alice.id,
        'alice',
        'active',
        '0',
        'USDT',
        '9.000000',
        '0.000000',
        '0.000000',
        '0.000000',
        '2.000000',
        '0.000000',
        '0.000000',
        '1.000000',
        '12.000000',
      ],
    ]);
    const heads = findAll(findAll(doc, (e) => e.attrs['id'] === 'members')[0]!, (e) => e.tag === 'th').map(textOf);
    expect(heads.slice(5, 13)).toEqual(['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing']);

    const deliveries = tableRows(doc, 'deliveries');
    expect(deliveries.map((d) => [d[1], d[3], d[4], d[5]])).toEqual([['card.activated', '1', '204', 'delivered']]);

    expect(html).not.toContain('<script>alert');
    for (const secret of [sandbox.credentials.apiKey, sandbox.credentials.signingKey, sandbox.webhooks.secret])
      expect(html).not.toContain(secret);
  });

  it('an empty sandbox renders every section with its empty note, and HEAD answers without a body', async () => {
    const { server } = await serve();
    const html = await (await fetch(`${server.url}/__sandbox`)).text();
    const doc = parseHtml(html);
    const sections = findAll(doc, (e) => e.tag === 'h2').map(textOf);
    expect(sections).toEqual(['Requests (0, newest first)', 'Members (0)', 'Webhook deliveries (0 attempts, 0 events)', 'Faults']);
    expect(findAll(doc, (e) => e.tag === 'table')).toEqual([]);
    const head = await fetch(`${server.url}/__sandbox/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('GET /__sandbox/ with more state', () => {
  it('armed faults, a failed delivery, a member without balance, and only the 200 newest requests', async () => {
    const { sandbox, server } = await serve({ sandbox: { webhooks: { attempts: 1 } } });
    const bare = sandbox.state.seedMember({ external_member_id: 'bare' });
    sandbox.faults.inject(
      { method: 'POST', path: '/v1/withdrawals' },
      { kind: 'status', status: 502, when: 'before' },
      { times: Infinity },
    );
    sandbox.faults.inject({ path: '/v1/reports' }, { kind: 'reset' }, { times: 2 });
    // A receiver that refuses the connection: nothing listens on port 9 of loopback.
    sandbox.webhooks.register('http://127.0.0.1:9/hooks');
    await sandbox.webhooks.emit('card.activated', { object: 'card', id: 'crd_1', status: 'active' });
    for (let i = 0; i < 205; i++) await sandbox.handle({ method: 'GET', url: `/v1/assets?i=${i}`, headers: {} });

    const doc = parseHtml(await (await fetch(`${server.url}/__sandbox/`)).text());
    expect(tableRows(doc, 'faults')).toEqual([
      ['POST', '/v1/withdrawals', 'status', 'always', '0', '0'],
      ['any', '/v1/reports', 'reset', '2', '0', '0'],
    ]);
    const [delivery] = tableRows(doc, 'deliveries');
    expect(delivery![3]).toBe('1');
    expect(delivery![5]).toMatch(/^error: /);
    expect(tableRows(doc, 'members')[0]!.slice(0, 5)).toEqual([bare.id, 'bare', 'active', '0', 'no balance']);
    const requests = tableRows(doc, 'requests');
    expect(requests).toHaveLength(200);
    expect(requests[0]![3]).toBe('/v1/assets?i=204');
    const notes = findAll(doc, (e) => e.tag === 'p').map(textOf);
    expect(notes).toContain('5 older requests: GET /__sandbox/requests');
  });
});
