import { abortable } from './sleep.js';
import type { StoredToken, TokenStore } from './token-store.js';

/** What the token manager needs from its surroundings. */
export interface TokenManagerDeps {
  readonly store: TokenStore;
  /**
   * Store key: identifies (base URL, client id) without containing a secret. A promise where it
   * is hashed with Web Crypto (asynchronous); only the store's calls wait for it.
   */
  readonly key: string | Promise<string>;
  /** Performs one token exchange (`POST /v1/connect/token`); `signal` aborts it. */
  readonly exchange: (signal: AbortSignal) => Promise<StoredToken>;
  /** Service-clock milliseconds (local clock corrected for measured skew). */
  readonly now: () => number;
  /** Renew this many seconds before `expired_at`. */
  readonly renewBeforeSeconds: number;
}

/**
 * How long a token that arrived already expired, or inside the renewal margin, is used anyway
 * (or until the service answers `invalid_token`): renewing on every call would exhaust the token
 * endpoint's 20 exchanges a minute and stall every call behind them.
 */
const STALE_TOKEN_REUSE_MS = 60_000;

/**
 * Caches the 30-minute token, renews it before `expired_at`, and makes one exchange for any
 * number of concurrent callers. (Each exchange attempt takes a place in the token endpoint's
 * 20-a-minute window at the attempt runner's gate.)
 */
export class TokenManager {
  readonly #deps: TokenManagerDeps;
  #cached: StoredToken | undefined;
  /** Local time until which `#cached` is used even if stale (it arrived stale). */
  #staleUntil = 0;
  #inflight: Renewal | undefined;

  constructor(deps: TokenManagerDeps) {
    this.#deps = deps;
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
    await this.#deps.store.delete(await this.#deps.key, token);
  }

  #fresh(t: StoredToken): boolean {
    if (t === this.#cached && Date.now() < this.#staleUntil) return true;
    return this.#current(t);
  }

  /** Whether `t` is still before its renewal margin on the service clock. */
  #current(t: StoredToken): boolean {
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
    const store = this.#deps.store;
    const key = await this.#deps.key;
    const shared = await store.get(key);
    if (shared !== undefined && this.#fresh(shared)) return (this.#cached = shared);
    const exchangeAndStore = async (): Promise<StoredToken> => {
      // Another instance may have renewed while we waited for the fleet lock.
      const again = store.withRenewalLock ? await store.get(key) : undefined;
      if (again !== undefined && this.#fresh(again)) return again;
      const token = await this.#deps.exchange(signal);
      await store.set(key, token);
      return token;
    };
    const token = store.withRenewalLock ? await store.withRenewalLock(key, exchangeAndStore) : await exchangeAndStore();
    this.#cached = token;
    // A token that arrives stale (the service's clock, or a short expiry) is used for a while.
    this.#staleUntil = this.#current(token) ? 0 : Date.now() + STALE_TOKEN_REUSE_MS;
    return token;
  }
}

/** A token renewal shared by concurrent callers. */
interface Renewal {
  readonly promise: Promise<StoredToken>;
  readonly controller: AbortController;
  /** Callers still waiting on it (those without a signal never stop waiting). */
  waiters: number;
}
