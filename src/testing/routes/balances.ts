/** `GET /v1/balances` (spec shape) and `GET /v1/assets` (named-only; shape simulator-invented). */
import { balanceRow } from '../views.js';
import type { RouteDef } from './context.js';
import { staticList } from './fields.js';

/** Balance and asset routes. */
export const balanceRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/balances',
    scope: 'balances:read',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const member = ctx.requireMember();
      // Only assets with an account row; `balances` is the transitional copy of `data`.
      const data = [...member.balances.entries()].map(([asset, row]) => balanceRow(ctx.store.assets, asset, row));
      return { status: 200, body: { data, next_cursor: null, has_more: false, balances: data } };
    },
  },
  {
    method: 'GET',
    path: '/v1/assets',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const data = ctx.store.assets.all().map((a) => ({
        asset: a.code,
        ledger_scale: a.ledger_scale,
        display_scale: a.display_scale,
        enabled: a.enabled,
      }));
      return { status: 200, body: staticList(data) };
    },
  },
];
