import { InvalidArgumentError } from '../errors/errors.js';
import { isLogLevelSetting, type LogLevelSetting } from './logger.js';

/**
 * The `logLevel` option, else `MERCHANT_API_LOG` (case and surrounding spaces ignored), else
 * `warn`: one rule for the client and the webhook receiver.
 *
 * @throws InvalidArgumentError naming `logLevel` for any other value.
 */
export function resolveLogLevel(given: LogLevelSetting | undefined, env: (name: string) => string | undefined): LogLevelSetting {
  if (given !== undefined) {
    if (isLogLevelSetting(given)) return given;
    throw new InvalidArgumentError('logLevel', "must be 'off', 'error', 'warn', 'info' or 'debug'.");
  }
  const raw = env('MERCHANT_API_LOG');
  if (raw === undefined || raw.trim() === '') return 'warn';
  const level = raw.trim().toLowerCase();
  if (isLogLevelSetting(level)) return level;
  throw new InvalidArgumentError('logLevel', "MERCHANT_API_LOG must be 'off', 'error', 'warn', 'info' or 'debug'.");
}
