/**
 * The per-call options (`CallOptions`) checked before anything is sent: a typo such as
 * `idempotencyKay` would otherwise be ignored and the call sent with a fresh key, and a negative
 * `timeoutMs` would end the call with a `TimeoutError` instead of naming the mistake.
 */
import { nonNegativeInt, positiveNumber } from '../errors/setting-checks.js';
import { InvalidArgumentError } from '../errors/errors.js';
import type { CallOptions } from '../types.js';

/** Every key `CallOptions` has. */
const KNOWN: ReadonlySet<string> = new Set(['idempotencyKey', 'signal', 'timeoutMs', 'maxRetries', 'headers']);

/**
 * `options` when it is a valid `CallOptions` (or absent). An own key with the value `undefined`
 * is accepted (spreading optional settings leaves such keys).
 *
 * @throws InvalidArgumentError naming the option (`options.timeoutMs`, `options.idempotencyKay`).
 */
export function checkCallOptions(options: unknown): CallOptions | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options))
    throw new InvalidArgumentError(
      'options',
      'must be an object of call options (idempotencyKey, signal, timeoutMs, maxRetries, headers).',
    );
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN.has(key) && o[key] !== undefined)
      throw new InvalidArgumentError(
        `options.${key.length > 40 ? `${key.slice(0, 40)}...` : key}`,
        'is not a call option (idempotencyKey, signal, timeoutMs, maxRetries, headers); nothing was sent.',
      );
  }
  positiveNumber('options.timeoutMs', o['timeoutMs'] as number | undefined, 1);
  nonNegativeInt('options.maxRetries', o['maxRetries'] as number | undefined, 0);
  const signal = o['signal'] as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function'))
    throw new InvalidArgumentError('options.signal', 'must be an AbortSignal.');
  return options;
}
