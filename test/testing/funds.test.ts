import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxServer } from '../../src/testing/index.js';
import { BUCKETS } from '../../src/testing/store-ops.js';
import { TestClient, viaFetch, viaHandle } from './harness.js';

const servers: SandboxServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const zeroRow = (overrides: Record<string, string>) => ({
  ...Object.fromEntries(BUCKETS.map((b) => [b, '0.000000'])),
  ...overrides,
});

describe('withdrawals (real sockets)', () => {
  it('moves available to withdrawing, then confirm clears it and fail returns it, across all 8 buckets', async () => {
    const sb = createSandbox();
    const srv = await sb.listen();
    servers.push(srv);
    const c = new TestClient(sb, viaFetch(srv.url));
    const m = sb.state.seedMember({
      balances: { USDT: { available: '100', frozen: '3', isolated: '2', locked: '1', card: '4', earn: '5' } },
    });
    const before = sb.state.balance(m.id, 'USDT');
    expect(before.total).toBe('115.000000');

    const w1 = await c.call('POST', '/v1/withdrawals', {
      member: m.id,
      key: true,
      body: { asset: 'usdt', amount: '25.5', to_address: 'TQ7x1Vb9' },
    });
    expect(w1.status).toBe(201);
    expect(w1.json).toMatchObject({ status: 'locked', asset: 'USDT', amount: '25.500000', ledger_scale: 6, to_address: 'TQ7x1Vb9' });
    expect(w1.json.id).toMatch(/^wdr_[0-9a-f-]{36}$/);
    const w2 = await c.call('POST', '/v1/withdrawals', {
      member: m.id,
      key: true,
      body: { asset: 'USDT', amount: '10', to_address: 'T2' },
    });

    const mid = sb.state.balance(m.id, 'USDT');
    expect(mid).toMatchObject(
      zeroRow({
        available: '64.500000',
        frozen: '3.000000',
        isolated: '2.000000',
        locked: '1.000000',
        card: '4.000000',
        earn: '5.000000',
        withdrawing: '35.500000',
      }),
    );
    expect(mid.total).toBe('115.000000');

    const confirmed = await c.call('POST', `/v1/withdrawals/${w1.json.id}/confirm`, { member: m.id, key: true });
    expect(confirmed.json).toMatchObject({ id: w1.json.id, status: 'confirmed' });
    const failed = await c.call('POST', `/v1/withdrawals/${w2.json.id}/fail`, { member: m.id, key: true });
    expect(failed.json).toMatchObject({ id: w2.json.id, status: 'failed' });

    const after = sb.state.balance(m.id, 'USDT');
    expect(after).toMatchObject(
      zeroRow({ available: '74.500000', frozen: '3.000000', isolated: '2.000000', locked: '1.000000', card: '4.000000', earn: '5.000000' }),
    );
    // Invariant: what is left plus what left the member equals what was there.
    expect(Number(after.total) + 25.5).toBe(Number(before.total));
    expect(sb.state.effects.map((e) => e.kind)).toEqual([
      'withdrawal.create',
      'withdrawal.create',
      'withdrawal.confirm',
      'withdrawal.fail',
    ]);

    const twice = await c.call('POST', `/v1/withdrawals/${w1.json.id}/confirm`, { member: m.id, key: true });
    expect(twice.json.code).toBe('state_invalid');
  });

  it('validates asset, amount precision and to_address; checks funds, line and member state', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const w = (body: Record<string, unknown>) =>
      c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: { asset: 'USDT', to_address: 'T', amount: '1', ...body } });
    expect((await w({ asset: 'DOGE' })).json.code).toBe('asset_not_allowed');
    expect((await w({ amount: 1 })).json.code).toBe('invalid_request');
    expect((await w({ amount: '1.0000001' })).json.code).toBe('invalid_request');
    expect((await w({ amount: '1e2' })).json.code).toBe('invalid_request');
    expect((await w({ amount: '0' })).json.code).toBe('invalid_request');
    expect((await w({ amount: '1.00000000000' })).status).toBe(201);
    expect((await w({ to_address: 'x'.repeat(201) })).json.code).toBe('invalid_request');
    expect((await w({ to_address: 'x'.repeat(200) })).status).toBe(201);
    expect((await w({ amount: '1000' })).json.code).toBe('insufficient_balance');
    sb.state.setLine('withdraw', false);
    expect((await w({})).json.code).toBe('service_unavailable');
    sb.state.setLine('withdraw', true);
    sb.state.setAsset({ code: 'USDT', ledger_scale: 6, display_scale: 2, enabled: false });
    expect((await w({})).json.code).toBe('asset_not_allowed');
    sb.state.setAsset({ code: 'USDT', ledger_scale: 6, display_scale: 2 });
    const r = sb.state.seedMember({ restricted: true, balances: { USDT: { available: '5' } } });
    expect(
      (await c.call('POST', '/v1/withdrawals', { member: r.id, key: true, body: { asset: 'USDT', amount: '1', to_address: 'T' } })).json
        .code,
    ).toBe('request_rejected');
  });

  it('keeps confirm and fail callable when the line is halted; custody declaration shortfall', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const w = await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: { asset: 'USDT', amount: '50', to_address: 'T' } });
    sb.state.setLine('withdraw', false);
    sb.state.setCustodyDeclaration('USDT', '10');
    expect((await c.call('POST', `/v1/withdrawals/${w.json.id}/confirm`, { member: m.id, key: true })).json.code).toBe(
      'merchant_custody_shortfall',
    );
    sb.state.setCustodyDeclaration('USDT', undefined);
    expect((await c.call('POST', `/v1/withdrawals/${w.json.id}/confirm`, { key: true })).json.status).toBe('confirmed');
  });

  it('hides another member’s withdrawal', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const a = sb.state.seedMember({ balances: { USDT: { available: '10' } } });
    const b = sb.state.seedMember();
    const w = await c.call('POST', '/v1/withdrawals', { member: a.id, key: true, body: { asset: 'USDT', amount: '5', to_address: 'T' } });
    const res = await c.call('POST', `/v1/withdrawals/${w.json.id}/fail`, { member: b.id, key: true });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('not_found');
  });
});

describe('members, deposits and balances', () => {
  it('creates a member, credits a deposit, and lists only assets with rows', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const created = await c.call('POST', '/v1/members', { key: true, body: { external_member_id: 'u-42' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ external_member_id: 'u-42', status: 'active' });
    expect(created.json.id).toMatch(/^mem_[0-9a-f-]{36}$/);
    expect((await c.call('POST', '/v1/members', { key: true, body: { external_member_id: 'u-42' } })).json.code).toBe('duplicate_resource');
    expect((await c.call('POST', '/v1/members', { body: { external_member_id: 'u-43' } })).json.code).toBe('idempotency_key_required');

    const empty = await c.call('GET', '/v1/balances', { member: 'u-42' });
    expect(empty.json).toEqual({ data: [], next_cursor: null, has_more: false, balances: [] });

    const dep = await c.call('POST', '/v1/deposits', {
      member: 'u-42',
      key: true,
      body: { asset: 'usdc', amount: '12.5', tx_hash: '0xabc' },
    });
    expect(dep.status).toBe(201);
    expect(dep.json).toMatchObject({ status: 'credited', asset: 'USDC', amount: '12.500000' });
    const list = await c.call('GET', '/v1/balances', { member: created.json.id });
    expect(list.json.data).toEqual([
      {
        asset: 'USDC',
        available: '12.500000',
        pending: '0.000000',
        frozen: '0.000000',
        isolated: '0.000000',
        locked: '0.000000',
        card: '0.000000',
        earn: '0.000000',
        withdrawing: '0.000000',
        ledger_scale: 6,
        display_scale: 2,
      },
    ]);
    expect(list.json.balances).toEqual(list.json.data);
    expect(sb.state.countEffects('deposit.credit')).toBe(1);

    const susp = await c.call('POST', `/v1/members/${created.json.id}/suspend`);
    expect(susp.json.status).toBe('suspended');
    expect((await c.call('GET', '/v1/balances', { member: 'u-42' })).json.code).toBe('member_not_found');
  });

  it('lists the asset catalogue with scales', async () => {
    const sb = createSandbox({ assets: [{ code: 'usdt', ledger_scale: 6, display_scale: 2 }] });
    const c = new TestClient(sb, viaHandle(sb));
    const res = await c.call('GET', '/v1/assets');
    expect(res.json).toEqual({
      data: [{ asset: 'USDT', ledger_scale: 6, display_scale: 2, enabled: true }],
      next_cursor: null,
      has_more: false,
    });
  });

  it('uses one key per deposit: a replay credits nothing more', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const m = sb.state.seedMember();
    const key = randomUUID();
    await c.call('POST', '/v1/deposits', { member: m.id, key, body: { asset: 'USDT', amount: '5' } });
    await c.call('POST', '/v1/deposits', { member: m.id, key, body: { asset: 'USDT', amount: '5' } });
    expect(sb.state.balance(m.id, 'USDT').available).toBe('5.000000');
  });
});
