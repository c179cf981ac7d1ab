import { log, type Logger } from './logger.js';

/**
 * The service's clock as the client knows it: the local clock plus an offset learned from the
 * service's `Date` header after a `timestamp_out_of_range` (Authentication > Signatures: the
 * timestamp must be within 300 seconds of the service clock).
 */
export class ServiceClock {
  #offsetMs = 0;
  readonly #logger: Logger | undefined;

  constructor(logger: Logger | undefined) {
    this.#logger = logger;
  }

  /** Service-clock milliseconds: the local clock corrected by the learned offset. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** The offset currently applied (service minus local, ms). */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Adopts the offset a `Date` header shows; false when the header is missing or unreadable. */
  learnFrom(dateHeader: string | undefined): boolean {
    const serverMs = Date.parse(dateHeader ?? '');
    if (Number.isNaN(serverMs)) return false;
    this.#offsetMs = serverMs - Date.now();
    log(this.#logger, 'warn', 'corrected the signing clock from the service Date header', { offsetMs: this.#offsetMs });
    return true;
  }
}
