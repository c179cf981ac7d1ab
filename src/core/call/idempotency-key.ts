import { v5 } from 'uuid';
import { InvalidArgumentError } from '../errors/errors.js';

/**
 * The root namespace of {@link idempotencyKeyFor}, `uuid5(NIL, 'merchant-stablecoin:idempotency-key')`.
 * A merchant's namespace text becomes a UUID v5 under it, so any language computes the same keys:
 * `uuid5(uuid5(ROOT, namespace), reference)` (Python's `uuid.uuid5`, Go's `uuid.NewSHA1`). Fixed
 * for ever: changing it would change every derived key.
 */
const ROOT = '89e16131-3f33-5c56-8cbe-2919c87bba19';

function text(name: string, value: unknown): string {
  // A lone surrogate has no UTF-8 form (uuid would throw a URIError): refused by name instead.
  if (typeof value !== 'string' || value === '' || /\p{Cs}/u.test(value))
    throw new InvalidArgumentError(name, 'must be a non-empty string (well-formed Unicode).');
  return value;
}

/**
 * An idempotency key the merchant can compute again after a restart: a UUID version 5 derived
 * from a namespace of the merchant's choosing (one per kind of operation, e.g. `'payout'`) and
 * the merchant's own reference for the operation (its order id). Pass it as
 * `options.idempotencyKey` wherever a key is accepted.
 *
 * The same `(namespace, reference)` always gives the same key, in any process, so calling again
 * for the same order after a crash is a replay of the first call, not a second operation. The
 * limits are the service's (docs/idempotency-and-retries.md, "Keys you can compute again"):
 *
 * - the key protects for 24 hours from the service's first sight of it; afterwards the same key
 *   is a new request (a second withdrawal), so do not recompute keys for operations older than
 *   that: look them up instead;
 * - the same key with another body is `idempotency_key_reused`: one reference names one
 *   operation with one body (an edited amount needs another reference);
 * - one namespace per kind of operation: the withdrawal and the card top-up of one order need
 *   different namespaces (or references), or the second would be refused as a reuse.
 *
 * Keys are not secrets and carry no meaning the service reads; anyone who knows the namespace
 * and a reference can compute the key, which is harmless (it authorises nothing).
 *
 * @param namespace - Your name for the kind of operation (any non-empty text), e.g. `'payout'`.
 * @param reference - Your reference for this operation, e.g. the order id `'ord_42'`.
 * @returns A lower-case UUID (version 5, 8-4-4-4-12 hex).
 * @throws InvalidArgumentError when either is empty, not a string, or has lone surrogates.
 *
 * @example
 * const key = idempotencyKeyFor('payout', order.id);
 * await client.member(order.memberId).withdrawals.create(params, { idempotencyKey: key });
 */
export function idempotencyKeyFor(namespace: string, reference: string): string {
  return v5(text('reference', reference), v5(text('namespace', namespace), ROOT));
}
