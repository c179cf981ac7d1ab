/**
 * Shipping addresses. `PATCH /v1/shipping-addresses/{id}` follows the spec (whole replacement,
 * default flag unchanged). Sandbox's choice, where the spec says "which six items are required:
 * not shown": of the eight fields of its example body, the six required are `country`,
 * `recipient_last`, `recipient_first`, `phone_number`, `city` and `line1`; `phone_code`,
 * `postal_code` and the clearable `line2` are optional (missing or empty stores `''`). Every
 * missing required item is listed in one 400 `invalid_fields` (`fields[].reason: required`).
 * `POST`, `GET` and `DELETE` are not in the spec's catalogue and are simulator-invented.
 */
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import type { AddressRecord } from '../store.js';
import { charCount } from '../text.js';
import type { RouteContext, RouteDef } from './context.js';
import { owned } from './fields.js';

/** The six items the simulator requires. */
const REQUIRED_ADDRESS_FIELDS = ['country', 'recipient_last', 'recipient_first', 'phone_number', 'city', 'line1'] as const;
const OPTIONAL_ADDRESS_FIELDS = ['phone_code', 'postal_code', 'line2'] as const;

function readAddress(body: Record<string, unknown>): Record<string, string> {
  const problems: Array<{ key: string; reason: string }> = [];
  const out: Record<string, string> = {};
  for (const key of [...REQUIRED_ADDRESS_FIELDS, ...OPTIONAL_ADDRESS_FIELDS]) {
    const v = body[key];
    const required = (REQUIRED_ADDRESS_FIELDS as readonly string[]).includes(key);
    if (v === undefined || v === null || v === '') {
      if (required) problems.push({ key, reason: 'required' });
      else out[key] = '';
    } else if (typeof v !== 'string' || charCount(v) > 200) {
      problems.push({ key, reason: 'invalid' });
    } else {
      out[key] = v;
    }
  }
  if (problems.length > 0)
    fail('invalid_fields', 'Some address fields are invalid.', { extra: { fields: problems, reason: problems[0]?.reason ?? 'invalid' } });
  return out;
}

function view(a: AddressRecord): Record<string, unknown> {
  return { id: a.id, ...a.fields, is_default: a.is_default, created_at: iso(a.created_at) };
}

function addressOf(ctx: RouteContext): AddressRecord {
  return owned(ctx.store.addresses, ctx.params['id'] ?? '', ctx.requireMember());
}

/** Shipping address routes. */
export const addressRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/shipping-addresses',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const m = ctx.requireMember();
      const data = [...ctx.store.addresses.values()].filter((a) => a.memberId === m.id).map(view);
      return { status: 200, body: { data, next_cursor: null, has_more: false } };
    },
  },
  {
    method: 'POST',
    path: '/v1/shipping-addresses',
    member: 'required',
    idempotency: 'required',
    handler(ctx) {
      const fields = readAddress(ctx.json());
      const m = ctx.requireMember();
      const first = ![...ctx.store.addresses.values()].some((a) => a.memberId === m.id);
      const a: AddressRecord = { id: `addr_${uuid()}`, memberId: m.id, fields, is_default: first, created_at: ctx.now };
      ctx.store.addresses.set(a.id, a);
      return { status: 201, body: view(a) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/shipping-addresses/:id',
    scope: 'addresses:write',
    member: 'required',
    idempotency: 'required',
    handler(ctx) {
      const a = addressOf(ctx);
      a.fields = readAddress(ctx.json());
      return { status: 200, body: view(a) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/shipping-addresses/:id',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const a = addressOf(ctx);
      ctx.store.addresses.delete(a.id);
      return { status: 200, body: { id: a.id, deleted: true } };
    },
  },
];
