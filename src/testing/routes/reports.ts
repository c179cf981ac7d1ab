/**
 * Export reports. `GET /v1/reports` follows the spec (keyset, expired cursor = first page).
 * `GET /v1/reports/{id}` is named-only; its shape here (the list item plus `download_url`,
 * null unless `ready`) is simulator-invented.
 */
import { paginate } from '../cursor.js';
import { fail } from '../errors.js';
import { hex } from '../ids.js';
import { reportView } from '../views.js';
import type { RouteDef } from './context.js';
import { withPrefix } from './fields.js';

/** Report routes. */
export const reportRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/reports',
    scope: 'merchant:read',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const { page, next_cursor, has_more } = paginate([...ctx.store.reports.values()], ctx.query, {
        now: ctx.now,
        generation: ctx.store.cursorGeneration,
      });
      return { status: 200, body: { data: page.map(reportView), next_cursor, has_more } };
    },
  },
  {
    method: 'GET',
    path: '/v1/reports/:id',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const r = ctx.store.reports.get(withPrefix(ctx.params['id'] ?? '', 'rep_'));
      if (!r) fail('not_found', 'No such report.');
      const url = r.status === 'ready' ? `https://files.sandbox.invalid/reports/${r.id}.csv?sig=${hex(8)}` : null;
      return { status: 200, body: { ...reportView(r), download_url: url } };
    },
  },
];
