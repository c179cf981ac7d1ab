/**
 * Whether any attempt of a call may have reached the service:
 * - `no`: nothing left the client (bad input, no connection, a step before the first send failed);
 * - `maybe`: a request was on its way when the attempt failed (a reset, a timeout): the service may
 *   have executed it; or (with an intent journal) nothing was sent yet but the journal may still
 *   hold the call, so a later `recover()` may send it;
 * - `yes`: the service answered at least one attempt (any status).
 */
export type CallSent = 'no' | 'maybe' | 'yes';

/**
 * The state of one call, carried by every outcome: the result's response metadata on success,
 * `err.call` on failure, whatever step failed last (token renewal, limiter, clock, validation).
 *
 * The recipe after any failure: when `sent` is not `no` and the failure is not a business answer
 * to be fixed with a new key, call again with `idempotencyKey`; the service executes a key once.
 */
export interface CallState {
  /** The key every attempt of the call carried (undefined for calls without one, such as reads). */
  readonly idempotencyKey: string | undefined;
  /** Whether any attempt may have reached the service. */
  readonly sent: CallSent;
  /** HTTP status of the last response, when one arrived. */
  readonly status: number | undefined;
  /** `X-Request-Id` of the last response, when one arrived. Quote it to support. */
  readonly requestId: string | undefined;
  /** Attempts made on the wire. */
  readonly attempts: number;
}

/**
 * A copy of an error, keeping its class, stamped with the state of the call it ends. Always a
 * copy: an error may be shared by several calls (one token renewal fails for all its waiters),
 * and each caller must read its own call's state. `note` says which step failed after what.
 *
 * @internal
 */
export function withCallState<E extends Error>(err: E, call: CallState, note?: string): E {
  const target = copyError(err);
  Object.defineProperty(target, 'call', { value: call, enumerable: true, configurable: true });
  Object.defineProperty(target, 'idempotencyKey', { value: call.idempotencyKey, enumerable: true, configurable: true });
  // Attempts of this call, not of the step that failed (a token exchange counts its own).
  if (Object.hasOwn(target, 'attempts'))
    Object.defineProperty(target, 'attempts', { value: call.attempts, enumerable: true, configurable: true });
  if (note !== undefined) {
    const message = `${err.message} (${note})`;
    Object.defineProperty(target, 'message', { value: message, enumerable: false, writable: true, configurable: true });
    // The stack starts with the message where the runtime builds it so (V8); elsewhere it is kept.
    const stack = target.stack;
    const restated = typeof stack === 'string' ? stack.replace(err.message, message) : `${err.name}: ${message}`;
    Object.defineProperty(target, 'stack', { value: restated, writable: true, enumerable: false, configurable: true });
  }
  return target;
}

/**
 * A copy of `err` with its prototype (class) and every own property, each read from `err` as a
 * value. An accessor is never copied as is: Node 22 and later give an error an own `stack`
 * accessor that reads the error it was made for, so on a copy it would read nothing (and a copy
 * of that copy would lose the stack for good). `stack` is read even where the runtime keeps it
 * on the prototype, so the copy always carries the original's.
 */
function copyError<E extends Error>(err: E): E {
  const copy = Object.create(Object.getPrototypeOf(err) as object) as E;
  const descriptors = Object.getOwnPropertyDescriptors(err) as Record<PropertyKey, PropertyDescriptor>;
  for (const key of Reflect.ownKeys(descriptors)) {
    const d = descriptors[key]!;
    const value: PropertyDescriptor =
      'value' in d ? d : { value: Reflect.get(err, key) as unknown, writable: true, enumerable: d.enumerable, configurable: true };
    Object.defineProperty(copy, key, value);
  }
  if (!Object.hasOwn(copy, 'stack') && typeof err.stack === 'string') {
    Object.defineProperty(copy, 'stack', { value: err.stack, writable: true, enumerable: false, configurable: true });
  }
  return copy;
}
