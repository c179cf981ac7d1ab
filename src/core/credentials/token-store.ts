/** A cached access token: its value and `expired_at` (Unix seconds, service clock). */
export interface StoredToken {
  /** The access token (a secret). */
  readonly token: string;
  /** `expired_at` of the token: Unix seconds on the service clock. */
  readonly expiresAt: number;
}

/**
 * Where tokens are kept. The default keeps them in memory per client; a fleet of servers shares
 * one token (and one renewal) by plugging a shared store (see docs/fleet.md).
 *
 * Contract:
 * - `get` returns the token last `set` under the key, or undefined.
 * - `set` replaces it.
 * - `delete(key, token)` removes it only if it still holds `token` (compare-and-delete), so an
 *   instance dropping a revoked token never deletes a newer one another instance just stored.
 * - `withRenewalLock`, when present, runs `renew` while holding a fleet-wide lock for the key so
 *   that N instances make one exchange; it must release the lock on failure, and a crashed
 *   holder's lock must expire on its own.
 */
export interface TokenStore {
  /** The token last stored under `key`, or undefined. */
  get(key: string): Promise<StoredToken | undefined> | StoredToken | undefined;
  /** Stores `token` under `key`, replacing any previous one. */
  set(key: string, token: StoredToken): Promise<void> | void;
  /** Removes the token under `key` only if it is still `token` (compare-and-delete). */
  delete(key: string, token: string): Promise<void> | void;
  /** Optional: runs `renew` under a fleet-wide lock for `key`, so N instances make one exchange. */
  withRenewalLock?<T>(key: string, renew: () => Promise<T>): Promise<T>;
}

/** The default per-process token store. */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredToken>();

  /** The token stored under `key`, or undefined. */
  get(key: string): StoredToken | undefined {
    return this.#tokens.get(key);
  }

  /** Stores `token` under `key`. */
  set(key: string, token: StoredToken): void {
    this.#tokens.set(key, token);
  }

  /** Removes the token under `key` if it is still `token`. */
  delete(key: string, token: string): void {
    if (this.#tokens.get(key)?.token === token) this.#tokens.delete(key);
  }

  /** Never reveal tokens through inspection. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryTokenStore { size: ${this.#tokens.size} }`;
  }

  /** `JSON.stringify(store)` shows the number of tokens, never a token. */
  toJSON(): Record<string, unknown> {
    return { size: this.#tokens.size };
  }
}
