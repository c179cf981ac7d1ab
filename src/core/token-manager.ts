import { TOKEN_EXCHANGES_PER_MINUTE } from '../spec/rate-limits.js';
import { systemClock, type Clock } from './clock.js';
import type { StoredToken, TokenStore } from './token-store.js';

/** What the token manager needs from its surroundings. */
export interface TokenManagerDeps {
  readonly store: TokenStore;
  /** Store key: identifies (base URL, client id) without containing a secret. */
  readonly key: string;
  /** Performs one token exchange (`POST /v1/connect/token`); `signal` aborts it. */
  readonly exchange: (signal: AbortSignal) => Promise<StoredToken>;
  /** Service-clock milliseconds (local clock corrected for measured skew). */
  readonly now: () => number;
  /** Renew this many seconds before `expired_at`. */
  readonly renewBeforeSeconds: number;
  /**
   * The clock of the exchange throttle (at most 20 exchanges in any minute of it, waiting on it
   * when over). Default {@link systemClock}; tests pass a controllable one. Token freshness is
   * judged on `now` (the service clock), not on this.
   */
  readonly clock?: Clock;
}

/**
 * Caches the 30-minute token, renews it before `expired_at`, makes one exchange for any number
 * of concurrent callers, and never exceeds the token endpoint's 20 exchanges per minute.
 */
export class TokenManager {
  readonly #deps: TokenManagerDeps;
  readonly #clock: Clock;
  #cached: StoredToken | undefined;
  #inflight: Renewal | undefined;
  readonly #recentExchanges: number[] = [];

  constructor(deps: TokenManagerDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
  }

  /** A valid token, from memory when fresh (no await on the store in the hot path). */
  get(signal?: AbortSignal): Promise<string> | string {
    const cached = this.#cached;
    if (cached !== undefined && this.#fresh(cached)) return cached.token;
    return this.#renew(signal).then((t) => t.token);
  }

  /** Drops a token the service rejected with `invalid_token`; the next `get` renews. */
  async invalidate(token: string): Promise<void> {
    if (this.#cached?.token === token) this.#cached = undefined;
    await this.#deps.store.delete(this.#deps.key, token);
  }

  /** Number of exchanges made by this manager in the last minute (for diagnostics). */
  get exchangesLastMinute(): number {
    this.#prune(this.#clock.now());
    return this.#recentExchanges.length;
  }

  #fresh(t: StoredToken): boolean {
    return t.expiresAt * 1000 - this.#deps.renewBeforeSeconds * 1000 > this.#deps.now();
  }

  #renew(signal?: AbortSignal): Promise<StoredToken> {
    // One renewal for all concurrent callers. A caller's abort stops its own wait; when every
    // caller has aborted, the renewal itself is aborted, so that no exchange (socket, timer)
    // outlives the calls that wanted it.
    let renewal = this.#inflight;
    if (renewal === undefined) {
      const controller = new AbortController();
      const promise = this.#load(controller.signal).finally(() => {
        if (this.#inflight === renewal) this.#inflight = undefined;
      });
      renewal = this.#inflight = { promise, controller, waiters: 0 };
    }
    const r = renewal;
    r.waiters++;
    if (signal === undefined) return r.promise;
    return abortable(r.promise, signal, () => {
      if (--r.waiters > 0) return;
      // A caller arriving from now on starts a fresh renewal instead of joining this one.
      if (this.#inflight === r) this.#inflight = undefined;
      r.controller.abort(signal.reason);
    });
  }

  async #load(signal: AbortSignal): Promise<StoredToken> {
    const { store, key } = this.#deps;
    const shared = await store.get(key);
    if (shared !== undefined && this.#fresh(shared)) return (this.#cached = shared);
    const exchangeAndStore = async (): Promise<StoredToken> => {
      // Another instance may have renewed while we waited for the fleet lock.
      const again = store.withRenewalLock ? await store.get(key) : undefined;
      if (again !== undefined && this.#fresh(again)) return again;
      await this.#throttle(signal);
      const token = await this.#deps.exchange(signal);
      await store.set(key, token);
      return token;
    };
    const token = store.withRenewalLock ? await store.withRenewalLock(key, exchangeAndStore) : await exchangeAndStore();
    this.#cached = token;
    return token;
  }

  /** Keeps this process under the token endpoint's quota, whatever happens upstream. */
  async #throttle(signal: AbortSignal): Promise<void> {
    const now = this.#clock.now();
    this.#prune(now);
    if (this.#recentExchanges.length >= TOKEN_EXCHANGES_PER_MINUTE) {
      await this.#clock.sleep(this.#recentExchanges[0]! + 60_000 - now, signal);
      this.#prune(this.#clock.now());
    }
    this.#recentExchanges.push(this.#clock.now());
  }

  #prune(now: number): void {
    while (this.#recentExchanges.length > 0 && this.#recentExchanges[0]! <= now - 60_000) this.#recentExchanges.shift();
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `TokenManager { cached: ${this.#cached === undefined ? 'no' : 'yes'} }`;
  }

  toJSON(): Record<string, unknown> {
    return { cached: this.#cached !== undefined };
  }
}

/** A token renewal shared by concurrent callers. */
interface Renewal {
  readonly promise: Promise<StoredToken>;
  readonly controller: AbortController;
  /** Callers still waiting on it (those without a signal never stop waiting). */
  waiters: number;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal, onAborted: () => void): Promise<T> {
  if (signal.aborted) {
    onAborted();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      onAborted();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
