import { abortable } from '../time/sleep.js';
import type { StoredToken, TokenStore } from './token-store.js';

/** What the token manager needs from its surroundings. */
export interface TokenManagerDeps {
  readonly store: TokenStore;
  /**
   * Store key: identifies (base URL, client id) without containing a secret. A promise where it
   * is hashed with Web Crypto (asynchronous); only the store's calls wait for it.
   */
  readonly key: string | Promise<string>;
  /**
   * Performs one token exchange (`POST /v1/connect/token`); `signal` aborts it; `parent` is the
   * trace context of the call that caused it.
   */
  readonly exchange: (signal: AbortSignal, parent?: unknown) => Promise<StoredToken>;
  /**
   * Service-clock milliseconds (the wall clock corrected for measured skew): read once when a
   * token arrives, to learn how long it has left.
   */
  readonly now: () => number;
  /**
   * A monotonic clock in milliseconds (default `performance.now()`): every deadline of a token
   * in hand is measured on it, so a step of the wall clock neither stretches nor cuts its life.
   */
  readonly monotonic?: () => number;
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
 * The longest life a token is given, whatever `expired_at` says (Limits > Other constants: an
 * access token is valid 30 minutes): a wall clock that was behind when the token arrived cannot
 * make the client hold it past its real end.
 */
const TOKEN_LIFETIME_MS = 30 * 60_000;

const performanceNow = (): number => performance.now();

/** A token in hand, with the monotonic time until which it is used without renewal. */
interface HeldToken {
  readonly stored: StoredToken;
  readonly useUntil: number;
}

/**
 * Caches the 30-minute token, renews it before `expired_at`, and makes one exchange for any
 * number of concurrent callers. (Each exchange attempt takes a place in the token endpoint's
 * 20-a-minute window at the attempt runner's gate.)
 */
export class TokenManager {
  readonly #deps: TokenManagerDeps;
  readonly #monotonic: () => number;
  #held: HeldToken | undefined;
  #inflight: Renewal | undefined;

  constructor(deps: TokenManagerDeps) {
    this.#deps = deps;
    this.#monotonic = deps.monotonic ?? performanceNow;
  }

  /** The token in memory while it is fresh, else undefined (no store read, no renewal). */
  current(): string | undefined {
    const held = this.#held;
    return held !== undefined && this.#monotonic() < held.useUntil ? held.stored.token : undefined;
  }

  /**
   * A valid token, from memory when fresh (no await on the store in the hot path). `parent`: the
   * trace context of the call asking, which an exchange it starts is traced under.
   */
  get(signal?: AbortSignal, parent?: unknown): Promise<string> | string {
    return this.current() ?? this.#renew(signal, parent).then((t) => t.token);
  }

  /** Drops a token the service rejected with `invalid_token`; the next `get` renews. */
  async invalidate(token: string): Promise<void> {
    if (this.#held?.stored.token === token) this.#held = undefined;
    await this.#deps.store.delete(await this.#deps.key, token);
  }

  /**
   * The monotonic time until which `t` is used, learned now: its time left on the service clock
   * (`expired_at` in Unix seconds, at most the spec's 30 minutes) minus the renewal margin,
   * measured from this moment on the monotonic clock. One that is already inside the margin
   * was renewed just now or comes from another instance: it is used for a while (or until the
   * service answers `invalid_token`) rather than renewed on every call.
   */
  #hold(t: StoredToken, arrived: boolean): HeldToken | undefined {
    const now = this.#monotonic();
    const leftMs = Math.min(t.expiresAt * 1000 - this.#deps.now(), TOKEN_LIFETIME_MS);
    const renewAt = now + leftMs - this.#deps.renewBeforeSeconds * 1000;
    if (renewAt > now) return { stored: t, useUntil: renewAt };
    return arrived ? { stored: t, useUntil: now + STALE_TOKEN_REUSE_MS } : undefined;
  }

  #renew(signal?: AbortSignal, parent?: unknown): Promise<StoredToken> {
    // One renewal for all concurrent callers. A caller's abort stops its own wait; when every
    // caller has aborted, the renewal itself is aborted, so that no exchange (socket, timer)
    // outlives the calls that wanted it.
    let renewal = this.#inflight;
    if (renewal === undefined) {
      const controller = new AbortController();
      // The caller that starts the renewal is the one its exchange is traced under.
      const promise = this.#load(controller.signal, parent).finally(() => {
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

  async #load(signal: AbortSignal, parent: unknown): Promise<StoredToken> {
    const store = this.#deps.store;
    const key = await this.#deps.key;
    const shared = await this.#fromStore(key);
    if (shared !== undefined) return shared;
    const exchangeAndStore = async (): Promise<StoredToken> => {
      // Another instance may have renewed while we waited for the fleet lock.
      const again = store.withRenewalLock ? await this.#fromStore(key) : undefined;
      if (again !== undefined) return again;
      const token = await this.#deps.exchange(signal, parent);
      // Its life is measured from its arrival, before the store's write can delay it.
      const held = this.#hold(token, true);
      await store.set(key, token);
      this.#held = held;
      return token;
    };
    return store.withRenewalLock ? store.withRenewalLock(key, exchangeAndStore) : exchangeAndStore();
  }

  /** The store's token when it is fresh, then held; undefined when absent or due for renewal. */
  async #fromStore(key: string): Promise<StoredToken | undefined> {
    const stored = await this.#deps.store.get(key);
    if (stored === undefined) return undefined;
    // The token this instance holds already (stale on arrival, in its minute of reuse) keeps its deadline.
    const held = this.#held?.stored.token === stored.token ? this.#held : this.#hold(stored, false);
    if (held === undefined || this.#monotonic() >= held.useUntil) return undefined;
    this.#held = held;
    return stored;
  }
}

/** A token renewal shared by concurrent callers. */
interface Renewal {
  readonly promise: Promise<StoredToken>;
  readonly controller: AbortController;
  /** Callers still waiting on it (those without a signal never stop waiting). */
  waiters: number;
}
