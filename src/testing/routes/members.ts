/**
 * Members. `POST /v1/members` and `POST /v1/members/{id}/suspend` are named by the spec without
 * shapes: the shapes here are simulator-invented. `GET /v1/members[/{id}]` are not in the spec's
 * catalogue at all; they exist so tests can read what they seeded.
 */
import { paginate } from '../cursor.js';
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { kycLevel, memberByRef, newMember } from '../store-ops.js';
import type { MemberRecord, Store } from '../store.js';
import type { RouteDef } from './context.js';
import { reqString } from './fields.js';

/** Simulator-invented member shape. */
function memberView(m: MemberRecord): Record<string, unknown> {
  return { id: m.id, external_member_id: m.external_member_id, status: m.status, kyc_level: kycLevel(m), created_at: iso(m.created_at) };
}

function anyMember(store: Store, ref: string): MemberRecord {
  const m = memberByRef(store, ref);
  if (!m) fail('member_not_found', 'No such member.');
  return m;
}

/** Member routes. */
export const memberRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/members',
    member: 'none',
    idempotency: 'required',
    handler(ctx) {
      const ext = reqString(ctx.json(), 'external_member_id', 64);
      if ([...ctx.store.members.values()].some((m) => m.external_member_id === ext)) {
        fail('duplicate_resource', 'A member with this external_member_id already exists.');
      }
      const m = newMember(`mem_${uuid()}`, ext, ctx.now);
      ctx.store.members.set(m.id, m);
      return { status: 201, body: memberView(m) };
    },
  },
  {
    method: 'GET',
    path: '/v1/members',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const { page, next_cursor, has_more } = paginate([...ctx.store.members.values()], ctx.query, {
        now: ctx.now,
        generation: ctx.store.cursorGeneration,
      });
      return { status: 200, body: { data: page.map(memberView), next_cursor, has_more } };
    },
  },
  {
    method: 'GET',
    path: '/v1/members/:id',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      return { status: 200, body: memberView(anyMember(ctx.store, ctx.params['id'] ?? '')) };
    },
  },
  {
    method: 'POST',
    path: '/v1/members/:id/suspend',
    member: 'none',
    // Inherently idempotent: the key is honoured when sent, not required.
    idempotency: 'optional',
    handler(ctx) {
      const m = anyMember(ctx.store, ctx.params['id'] ?? '');
      m.status = 'suspended';
      return { status: 200, body: memberView(m) };
    },
  },
];
