/**
 * Every namespace method returns a promise, so every failure reaches the caller through it: bad
 * input that a guard refuses before anything is sent (`amount: 12.5`, a blank id) becomes a
 * rejected call, which `.catch()` and `Promise.allSettled(orders.map(...))` see, as stripe-node and
 * openai-node do. The guards stay plain synchronous checks; the wrapping is done once per class.
 */
import { failedCall } from '../core/pipeline/failed-call.js';

/**
 * Makes each method of `cls` (every one returns an `ApiPromise` or a `PagePromise`) report a
 * synchronous throw as a failed call instead. Getters (a member view's namespaces) are left alone.
 */
export function rejectingBadInput(cls: { readonly prototype: object }): void {
  const proto = cls.prototype;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    if (name === 'constructor' || typeof descriptor.value !== 'function') continue;
    const method = descriptor.value as (this: unknown, ...args: unknown[]) => unknown;
    // A computed-name method keeps the original's `name` in stack traces.
    const wrapped = {
      [name](this: unknown, ...args: unknown[]): unknown {
        try {
          return method.apply(this, args);
        } catch (err) {
          return failedCall(err);
        }
      },
    }[name]!;
    Object.defineProperty(proto, name, { ...descriptor, value: wrapped });
  }
}
