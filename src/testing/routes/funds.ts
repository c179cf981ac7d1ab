/**
 * Member deposits and withdrawals. `POST /v1/withdrawals` follows the spec's shape; deposits,
 * confirm, fail, `GET /v1/withdraw-addresses` and `GET /v1/withdrawals/{id}` are named-only in
 * the spec and their shapes here are simulator-invented.
 */
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { fmt, parsePositive } from '../money.js';
import { adjust, debit, lineOpen, move } from '../store-ops.js';
import type { WithdrawalRecord } from '../store.js';
import { withdrawalView } from '../views.js';
import { checkMemberWithdrawLimit } from '../withdrawal-limits.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString, owned, reqString, staticList, withPrefix } from './fields.js';

function withdrawalFor(ctx: RouteContext): WithdrawalRecord {
  return owned(ctx.store.withdrawals, withPrefix(ctx.params['id'] ?? '', 'wdr_'), ctx.member);
}

/**
 * Settles a locked withdrawal: `confirm` clears the hold, `fail` returns it to available (spec).
 * Sandbox's choice, where the spec is silent (it names no final state and no second exit):
 * confirming or failing a withdrawal that is no longer `locked` (already confirmed or failed) is
 * 400 `state_invalid` and moves nothing; the final states are named `confirmed` and `failed`.
 * The same idempotency key still replays the first outcome.
 */
function settle(ctx: RouteContext, outcome: 'confirmed' | 'failed'): { status: number; body: unknown } {
  const w = withdrawalFor(ctx);
  if (w.status !== 'locked') fail('state_invalid', `Withdrawal is ${w.status}.`);
  const member = ctx.store.members.get(w.memberId);
  if (!member) fail('not_found', 'No such object.');
  if (outcome === 'confirmed') {
    const declared = ctx.store.merchant.custodyDeclared.get(w.asset);
    if (declared !== undefined) {
      if (declared.lt(w.amount)) fail('merchant_custody_shortfall', 'Confirming would make the custody declaration negative.');
      ctx.store.merchant.custodyDeclared.set(w.asset, declared.minus(w.amount));
    }
    debit(member, w.asset, 'withdrawing', w.amount, 'state_invalid');
  } else {
    move(member, { asset: w.asset, from: 'withdrawing', to: 'available', amount: w.amount }, 'state_invalid');
  }
  w.status = outcome;
  w.updated_at = ctx.now;
  ctx.effect(outcome === 'confirmed' ? 'withdrawal.confirm' : 'withdrawal.fail', w.id, {
    memberId: member.id,
    asset: w.asset,
    amount: w.amount.toFixed(),
  });
  return { status: 200, body: { ...withdrawalView(ctx.store.assets, w), updated_at: iso(w.updated_at) } };
}

/** `POST /v1/deposits`. */
function declareDeposit(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const member = ctx.requireMember();
  const asset = ctx.store.assets.requireEnabled(body['asset']);
  const amount = parsePositive(body['amount'], asset.ledger_scale, 'amount');
  const txHash = optString(body, 'tx_hash', 200) ?? '';
  if (!lineOpen(ctx.store.merchant, 'deposit')) fail('service_unavailable', 'The deposit line is unavailable.');
  // merchant_hosted: credited straight to available, `pending` stays 0 (spec: Balance row).
  adjust(member, asset.code, 'available', amount);
  const id = `dep_${uuid()}`;
  ctx.store.deposits.set(id, {
    id,
    memberId: member.id,
    asset: asset.code,
    amount,
    tx_hash: txHash,
    status: 'credited',
    created_at: ctx.now,
  });
  ctx.effect('deposit.credit', id, { memberId: member.id, asset: asset.code, amount: amount.toFixed() });
  return {
    status: 201,
    body: {
      id,
      status: 'credited',
      asset: asset.code,
      amount: fmt(amount, asset.ledger_scale),
      ledger_scale: asset.ledger_scale,
      tx_hash: txHash,
      created_at: iso(ctx.now),
    },
  };
}

/** `POST /v1/withdrawals`. */
function debitWithdrawal(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const member = ctx.requireMember();
  const asset = ctx.store.assets.requireEnabled(body['asset']);
  const amount = parsePositive(body['amount'], asset.ledger_scale, 'amount');
  const toAddress = reqString(body, 'to_address', 200);
  if (!lineOpen(ctx.store.merchant, 'withdraw')) fail('service_unavailable', 'The withdraw line is unavailable.');
  if (member.restricted) fail('request_rejected', 'The request was rejected.');
  checkMemberWithdrawLimit(ctx.store, member, asset.code, amount, ctx.now);
  move(member, { asset: asset.code, from: 'available', to: 'withdrawing', amount });
  const w: WithdrawalRecord = {
    id: `wdr_${uuid()}`,
    memberId: member.id,
    status: 'locked',
    asset: asset.code,
    amount,
    to_address: toAddress,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  ctx.store.withdrawals.set(w.id, w);
  ctx.effect('withdrawal.create', w.id, { memberId: member.id, asset: asset.code, amount: amount.toFixed() });
  return { status: 201, body: withdrawalView(ctx.store.assets, w) };
}

/** Deposit and withdrawal routes. */
export const fundsRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/deposits',
    member: 'required',
    idempotency: 'required',
    handler: declareDeposit,
  },
  {
    method: 'POST',
    path: '/v1/withdrawals',
    scope: 'withdrawals:write',
    member: 'required',
    idempotency: 'required',
    handler: debitWithdrawal,
  },
  {
    method: 'GET',
    path: '/v1/withdrawals/:id',
    member: 'optional',
    idempotency: 'none',
    handler(ctx) {
      return { status: 200, body: withdrawalView(ctx.store.assets, withdrawalFor(ctx)) };
    },
  },
  {
    method: 'POST',
    path: '/v1/withdrawals/:id/confirm',
    member: 'optional',
    idempotency: 'required',
    // Confirm and fail stay callable when the withdraw line is halted (spec).
    handler: (ctx) => settle(ctx, 'confirmed'),
  },
  {
    method: 'POST',
    path: '/v1/withdrawals/:id/fail',
    member: 'optional',
    idempotency: 'required',
    handler: (ctx) => settle(ctx, 'failed'),
  },
  {
    method: 'GET',
    path: '/v1/withdraw-addresses',
    member: 'optional',
    idempotency: 'none',
    handler(ctx) {
      const rows = [...ctx.store.withdrawAddresses.values()]
        .filter((a) => ctx.member === undefined || a.memberId === undefined || a.memberId === ctx.member.id)
        .map((a) => ({
          id: a.id,
          asset: a.asset,
          network: a.network,
          address: a.address,
          label: a.label,
          usable: a.usable,
          created_at: iso(a.created_at),
        }));
      return { status: 200, body: staticList(rows) };
    },
  },
];
