/**
 * One money-moving call, as the intent journal keeps it between "about to send" and "outcome
 * known": enough to send the same bytes again with the same key after the process died.
 *
 * Written by the SDK; a journal stores it as given (as JSON, for example) and hands it back
 * unchanged. It holds no secret: no token, no signature, and no body at all for a call that is
 * never resent (a card activation, whose body holds the PIN).
 */
export interface JournalIntent {
  /** The idempotency key every attempt carries: the intent's identity within its scope. */
  readonly key: string;
  /**
   * The client that recorded it: a digest of its base URL and client id. A client recovers only
   * its own scope, so a sandbox intent is never sent to production, nor one merchant's to another.
   */
  readonly scope: string;
  /** The SDK endpoint, e.g. `member.withdrawals.create`. */
  readonly endpoint: string;
  /** HTTP method, e.g. `POST`. */
  readonly method: string;
  /** Path with query exactly as signed and sent, e.g. `/v1/cards/crd_1/topups`. */
  readonly path: string;
  /**
   * The body exactly as sent, as text: the SDK serialises a body once with `JSON.stringify`,
   * whose output encodes to the same UTF-8 bytes again. `null` when there was no body, or when
   * it was withheld (see `withheld`).
   */
  readonly body: string | null;
  /**
   * True for an intent that is never sent again, only reported for a check of the object's
   * state, and whose body is therefore not kept: a call whose failures the service counts against
   * the customer (a card activation: three lock the card for 24 hours, and a resend could be one
   * more), or whose body had a secret field (the activation's PIN).
   */
  readonly withheld: boolean;
  /** `x-on-behalf-of` of a member-scoped call, else `null`. */
  readonly member: string | null;
  /**
   * When it was recorded, in Unix milliseconds of the recording host's wall clock: the only clock
   * that survives the process. Recovery compares it with the spec's 24-hour idempotency window.
   */
  readonly createdAt: number;
}

/** What {@link IntentJournal.claim} asks for. */
export interface JournalClaimRequest {
  /** Only intents of this scope (the recovering client's own). */
  readonly scope: string;
  /**
   * Only intents recorded at or before this time (Unix ms): younger ones may still be in flight
   * in a live process.
   */
  readonly createdBefore: number;
  /** Reserve each returned intent for this many ms: no other claim returns it meanwhile. */
  readonly leaseMs: number;
  /** At most this many intents (the SDK asks for one at a time). */
  readonly limit: number;
}

/**
 * Where the SDK writes money-moving calls ahead of sending them (`new MerchantClient({ journal })`),
 * so that `client.recover()` in a new process can finish what a dead one started. Three methods;
 * {@link MemoryJournal} (tests) and `RedisJournal` (`merchant-stablecoin/redis`) implement it, and
 * docs/idempotency-and-retries.md shows one over a SQL table of your own database.
 *
 * Contract:
 * - `record` resolves only once the intent is durable: the SDK sends nothing before. If it
 *   rejects, the call fails with `CallInterruptedError` (`call.sent: 'no'`) and nothing is sent.
 *   Recording a `(scope, key)` that is already open keeps the first record (its `createdAt`).
 * - `settle` removes the intent: its outcome is known. Settling an absent intent is not an error.
 * - `claim` atomically returns open intents of the scope, oldest first, recorded at or before
 *   `createdBefore` and not reserved by an unexpired claim, and reserves them for `leaseMs`. Two
 *   instances claiming at once never get the same intent.
 */
export interface IntentJournal {
  /** Stores an open intent, durably, before the call is sent. */
  record(intent: JournalIntent): Promise<void>;
  /** Removes the intent `key` of `scope`: its outcome is known. */
  settle(scope: string, key: string): Promise<void>;
  /** Reserves and returns open intents (see the interface's contract). */
  claim(request: JournalClaimRequest): Promise<readonly JournalIntent[]>;
}

interface Entry {
  readonly intent: JournalIntent;
  /** End of the current claim, on `performance.now()`. */
  claimedUntil: number;
}

/**
 * An {@link IntentJournal} in this process's memory: it shows what the journal does and serves
 * tests, but survives no crash. Use `RedisJournal` or your own database in production.
 */
export class MemoryJournal implements IntentJournal {
  readonly #entries = new Map<string, Entry>();

  /** Stores the intent (the first record of a key stays). */
  record(intent: JournalIntent): Promise<void> {
    const id = `${intent.scope} ${intent.key}`;
    if (!this.#entries.has(id)) this.#entries.set(id, { intent, claimedUntil: 0 });
    return Promise.resolve();
  }

  /** Removes the intent. */
  settle(scope: string, key: string): Promise<void> {
    this.#entries.delete(`${scope} ${key}`);
    return Promise.resolve();
  }

  /** Reserves and returns open intents of the scope, oldest first. */
  claim(request: JournalClaimRequest): Promise<readonly JournalIntent[]> {
    // Leases run on the monotonic clock: they never outlive this process anyway.
    const now = performance.now();
    const claimed: JournalIntent[] = [];
    const open = [...this.#entries.values()].sort((a, b) => a.intent.createdAt - b.intent.createdAt);
    for (const entry of open) {
      if (claimed.length >= request.limit) break;
      const { intent } = entry;
      if (intent.scope !== request.scope || intent.createdAt > request.createdBefore || entry.claimedUntil > now) continue;
      entry.claimedUntil = now + request.leaseMs;
      claimed.push(intent);
    }
    return Promise.resolve(claimed);
  }

  /** The open intents, oldest first (for tests and inspection). */
  open(): JournalIntent[] {
    return [...this.#entries.values()].map((e) => e.intent).sort((a, b) => a.createdAt - b.createdAt);
  }
}
