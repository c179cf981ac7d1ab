import { ClockSkewError } from '../errors/errors.js';
import { log, type Logger } from '../telemetry/logger.js';

/** Offsets within this much of the one in use are not news (and not logged again). */
const SAME_OFFSET_MS = 1000;

/**
 * The service's clock as the client knows it: the local clock plus an offset learned from the
 * service's `Date` header after a `timestamp_out_of_range` (Authentication > Signatures: the
 * timestamp must be within 300 seconds of the service clock). An offset beyond `maxOffsetMs` is
 * never adopted: one hostile or broken `Date` must not make every later signature wrong.
 */
export class ServiceClock {
  #offsetMs = 0;
  readonly #logger: Logger | undefined;
  readonly #maxOffsetMs: number;

  constructor(logger: Logger | undefined, maxOffsetMs: number) {
    this.#logger = logger;
    this.#maxOffsetMs = maxOffsetMs;
  }

  /** Service-clock milliseconds: the local clock corrected by the learned offset. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** The offset currently applied (service minus local, ms). */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /**
   * Adopts the offset a `Date` header shows; false when the header is missing or unreadable.
   * @throws ClockSkewError when the offset is beyond the bound (nothing is adopted).
   */
  learnFrom(dateHeader: string | undefined): boolean {
    const serverMs = Date.parse(dateHeader ?? '');
    if (Number.isNaN(serverMs)) return false;
    const offset = serverMs - Date.now();
    if (Math.abs(offset) > this.#maxOffsetMs) throw new ClockSkewError(offset, this.#maxOffsetMs);
    if (Math.abs(offset - this.#offsetMs) >= SAME_OFFSET_MS) {
      log(this.#logger, 'warn', 'corrected the signing clock from the service Date header', { offsetMs: offset });
    }
    this.#offsetMs = offset;
    return true;
  }
}
