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
  /**
   * The SDK endpoint's id, e.g. `member.withdrawals.create`: the name its log lines, spans and
   * metrics carry too. Recovery also reads a row naming it without `member.` (`withdrawals.create`).
   */
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

/**
 * A record {@link IntentJournal.claim} found but could not read back as a {@link JournalIntent}
 * (corrupt, hand-edited, or written by a newer version of the SDK). It stays in the journal,
 * claimed like any record (so the rest of the scope is reached), and `recover()` reports it
 * without sending anything: a person reads it and settles it.
 */
export interface UnreadableJournalRecord {
  /** Always true: tells it apart from a {@link JournalIntent}. */
  readonly unreadable: true;
  /** The idempotency key it is stored under, when the journal knows it (undefined otherwise). */
  readonly key: string | undefined;
  /** The scope it was claimed in. */
  readonly scope: string;
  /** What is wrong with it (never its content: it may hold a body). */
  readonly problem: string;
}

/** What {@link IntentJournal.claim} returns for one claimed record. */
export type ClaimedRecord = JournalIntent | UnreadableJournalRecord;

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

/** What {@link IntentJournal.openAfter} asks for. */
export interface JournalOpenAfterRequest {
  /** Only intents of this scope. */
  readonly scope: string;
  /** Only intents recorded after this time (Unix ms). */
  readonly createdAfter: number;
  /** Return at most this many of them (the oldest); `total` counts them all. */
  readonly limit: number;
}

/** What {@link IntentJournal.openAfter} found. */
export interface JournalOpenAfter {
  /** How many open intents of the scope were recorded after the time asked for. */
  readonly total: number;
  /** The oldest of them, at most `limit`, oldest first. */
  readonly intents: readonly JournalIntent[];
}

/** What {@link IntentJournal.leased} asks for. */
export interface JournalLeasedRequest {
  /** Only intents of this scope. */
  readonly scope: string;
  /** Only intents recorded at or before this time (Unix ms): those `claim` would take but for their lease. */
  readonly createdBefore: number;
  /** Leave these keys out: the intents the asking recovery claimed itself. */
  readonly exceptKeys: readonly string[];
  /** Return at most this many of them (those whose lease ends first); `total` counts them all. */
  readonly limit: number;
}

/** One intent under an unexpired claim, as {@link IntentJournal.leased} lists it. */
export interface JournalLease {
  /** Its idempotency key. */
  readonly key: string;
  /**
   * How long (ms) until its lease ends, counted on the clock that set the lease (the journal's:
   * Redis' `TIME`, PostgreSQL's `clock_timestamp()`), so no host's clock skews it.
   */
  readonly endsInMs: number;
}

/** What {@link IntentJournal.leased} found. */
export interface JournalLeased {
  /** How many open intents of the scope, recorded at or before the time asked for, are under an unexpired claim. */
  readonly total: number;
  /** Those whose lease ends first, at most `limit`, soonest first. */
  readonly leases: readonly JournalLease[];
}

/**
 * Where the SDK writes money-moving calls ahead of sending them (`new MerchantClient({ journal })`),
 * so that `client.recover()` in a new process can finish what a dead one started.
 * {@link MemoryJournal} (tests), `RedisJournal` (`merchant-stablecoin/redis`) and
 * `PostgresJournal` (`merchant-stablecoin/postgres`, a table of your own database) implement it.
 *
 * Contract:
 * - `record` resolves only once the intent is durable: the SDK sends nothing before. Recording a
 *   `(scope, key)` that is already open keeps the first record (its `createdAt`).
 * - When `record` rejects, the write may still have landed (its answer was lost): the SDK then
 *   calls `settle` for the same intent, and tells the caller "not sent" only once that `settle`
 *   resolved; otherwise the caller is told the outcome is unknown (the intent may be in the
 *   journal, and `recover()` may send it). So `settle` must remove a record that a rejected
 *   `record` wrote, even one that lands after it (Redis: one connection keeps the order). A
 *   `record` that knows it stored nothing (the store answered with a refusal) rejects with an
 *   error whose `executed` property is `false`: the SDK then skips that `settle`.
 * - `settle` removes the intent: its outcome is known. Settling an absent intent is not an error.
 * - `claim` atomically returns open records of the scope, oldest first, recorded at or before
 *   `createdBefore` and not reserved by an unexpired claim, and reserves them for `leaseMs`. Two
 *   instances claiming at once never get the same record. A record it cannot read back is
 *   returned as an {@link UnreadableJournalRecord} (claimed like the others), never dropped and
 *   never allowed to hide the records behind it.
 * - `openAfter` (optional) lists open intents younger than a time without claiming them:
 *   `recover()` reports what it left for later with it.
 * - `leased` (optional) lists the open intents `claim` passed over because another claim's lease
 *   has not ended, with how long each lease has left, claiming none: `recover()` reports what it
 *   left to another recoverer with it. A journal without it keeps working; the report then says
 *   nothing of them.
 */
export interface IntentJournal {
  /** Stores an open intent, durably, before the call is sent. */
  record(intent: JournalIntent): Promise<void>;
  /** Removes the intent `key` of `scope`: its outcome is known. */
  settle(scope: string, key: string): Promise<void>;
  /** Reserves and returns open records (see the interface's contract). */
  claim(request: JournalClaimRequest): Promise<readonly ClaimedRecord[]>;
  /** Lists open intents recorded after a time, without claiming them (optional; see the contract). */
  openAfter?(request: JournalOpenAfterRequest): Promise<JournalOpenAfter>;
  /** Lists open intents under an unexpired claim, without claiming them (optional; see the contract). */
  leased?(request: JournalLeasedRequest): Promise<JournalLeased>;
}

interface Entry {
  readonly intent: JournalIntent;
  /** End of the current claim, on `performance.now()`. */
  claimedUntil: number;
}

/**
 * An {@link IntentJournal} in this process's memory: it shows what the journal does and serves
 * tests, but survives no crash. Use `PostgresJournal` or `RedisJournal` in production.
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
  claim(request: JournalClaimRequest): Promise<readonly ClaimedRecord[]> {
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

  /** Lists open intents of the scope recorded after `createdAfter`, oldest first, without claiming them. */
  openAfter(request: JournalOpenAfterRequest): Promise<JournalOpenAfter> {
    const young = this.open().filter((i) => i.scope === request.scope && i.createdAt > request.createdAfter);
    return Promise.resolve({ total: young.length, intents: young.slice(0, request.limit) });
  }

  /** Lists open intents of the scope under an unexpired claim, soonest lease end first, without claiming them. */
  leased(request: JournalLeasedRequest): Promise<JournalLeased> {
    const now = performance.now();
    const except = new Set(request.exceptKeys);
    const leases = [...this.#entries.values()]
      .filter((e) => e.intent.scope === request.scope && e.intent.createdAt <= request.createdBefore && e.claimedUntil > now)
      .filter((e) => !except.has(e.intent.key))
      .map((e) => ({ key: e.intent.key, endsInMs: Math.ceil(e.claimedUntil - now) }))
      .sort((a, b) => a.endsInMs - b.endsInMs || a.key.localeCompare(b.key));
    return Promise.resolve({ total: leases.length, leases: leases.slice(0, request.limit) });
  }

  /** The open intents, oldest first (for tests and inspection). */
  open(): JournalIntent[] {
    return [...this.#entries.values()].map((e) => e.intent).sort((a, b) => a.createdAt - b.createdAt);
  }
}

/**
 * `value` as a {@link JournalIntent} when it has every field with its type, else what is wrong
 * with it (naming fields, never their values: a record may hold a body). Recovery reads every
 * claimed record through it, whatever journal returned it.
 *
 * @internal
 */
export function readIntent(value: unknown): JournalIntent | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const v = value as Record<string, unknown>;
  const wrong = [
    ...['key', 'scope', 'endpoint', 'method', 'path'].filter((k) => typeof v[k] !== 'string' || v[k] === ''),
    ...['body', 'member'].filter((k) => typeof v[k] !== 'string' && v[k] !== null),
    ...(typeof v['withheld'] === 'boolean' ? [] : ['withheld']),
    ...(Number.isFinite(v['createdAt']) ? [] : ['createdAt']),
  ];
  return wrong.length === 0
    ? (v as unknown as JournalIntent)
    : `missing or mistyped field${wrong.length === 1 ? '' : 's'}: ${wrong.join(', ')}`;
}

/**
 * An intent read back from the JSON text a store kept (a Redis hash field, a table column), or
 * what is wrong with the record: the one decoder of the fleet journals.
 *
 * @internal
 */
export function decodeIntent(raw: unknown): JournalIntent | string {
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch {
    return 'not JSON';
  }
  const intent = readIntent(value);
  return typeof intent === 'string' ? intent : Object.freeze(intent);
}
