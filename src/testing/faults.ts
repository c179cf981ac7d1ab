/**
 * A failure to inject into the next matching requests.
 *
 * - `status`: 500, 502 or 504 with the envelope. `before`: nothing executes. `after`: the
 *   request is processed normally and its outcome stored under the idempotency key, then this
 *   error is returned instead (the "timed out but executed" case).
 * - `in_progress`: 409 `idempotency_in_progress`.
 * - `rate_limited`: 429 with `Retry-After`; `flat` is the spec envelope plus `retry_after`,
 *   `wrapped` is `{error: {code, message, retry_after}}`.
 * - `html`: a proxy's HTML error page (`text/html`, no `X-Request-Id`, since it never reached
 *   the service).
 * - `reset`: the connection is dropped without an answer (server mode destroys the socket,
 *   msw answers `HttpResponse.error()`).
 * - `delay`: waits `ms` real milliseconds, then answers normally. The wait happens after the
 *   idempotency key is claimed, so a concurrent retry sees `idempotency_in_progress`.
 * - `hang`: holds the request where `delay` waits, without answering, until the test calls
 *   `release()` on the injected fault; then it is processed and answered normally. A client's
 *   timeout therefore always expires first, whatever the machine's speed (a `delay` only
 *   answers late, and a loaded machine can make "late" relative).
 * - `unknown_code`: an envelope with a code outside the catalogue (default 500
 *   `brand_new_code`).
 * - `timestamp_skew`: 401 `timestamp_out_of_range`, as if the client's clock had drifted.
 * - `garble`: the request executes normally (its outcome is stored under the idempotency key),
 *   then a 2xx answer's body is replaced by `body` (default: empty), with `status` if given
 *   (default: the real one) and the real headers: the service accepted the call, but the client
 *   cannot read what it answered. A non-2xx answer goes out unchanged. A retry with the same key
 *   replays the intact stored answer.
 */
export type Fault =
  | {
      /** A 500, 502 or 504 envelope. */
      kind: 'status';
      /** HTTP status. */
      status: 500 | 502 | 504;
      /** Error code (default the status's: `api_error`, `upstream_error`, `upstream_timeout`). */
      code?: string;
      /** `before`: nothing executes; `after`: executes and stores the outcome, then fails. */
      when: 'before' | 'after';
    }
  | {
      /** 409 `idempotency_in_progress`. */
      kind: 'in_progress';
    }
  | {
      /** 429 `rate_limited`. */
      kind: 'rate_limited';
      /** Seconds, in `Retry-After` and `retry_after`. */
      retryAfter: number;
      /** `flat` envelope or `wrapped` in `error`. */
      shape: 'flat' | 'wrapped';
    }
  | {
      /** A proxy's HTML error page. */
      kind: 'html';
      /** HTTP status of the page. */
      status: 502 | 503 | 504;
    }
  | {
      /** The connection is dropped without an answer. */
      kind: 'reset';
    }
  | {
      /** Waits, then answers normally. */
      kind: 'delay';
      /** Real milliseconds to wait. */
      ms: number;
    }
  | {
      /** Holds the request unanswered until `release()` of the injected fault. */
      kind: 'hang';
    }
  | {
      /** An envelope with a code outside the catalogue. */
      kind: 'unknown_code';
      /** HTTP status (default 500). */
      status?: number;
      /** The code (default `brand_new_code`). */
      code?: string;
    }
  | {
      /** 401 `timestamp_out_of_range`. */
      kind: 'timestamp_skew';
    }
  | {
      /** Executes normally (outcome stored), then replaces a 2xx answer's body. */
      kind: 'garble';
      /** The body sent instead (default: empty). */
      body?: string;
      /** The status sent instead (default: the real 2xx status). */
      status?: number;
    };

/**
 * Which requests a fault applies to. `path` is compared with the request path without its
 * query: a string matches exactly, or as a template where `:name` or `*` matches one segment
 * (`/v1/cards/:id/activate`); a RegExp is tested against it. `method` is case-insensitive;
 * omitted means any method.
 */
export interface FaultMatch {
  /** HTTP method, case-insensitive; omitted matches any. */
  method?: string;
  /** Exact path, template (`:name`, `*`) or RegExp, compared without the query. */
  path: string | RegExp;
}

/** Options of {@link SandboxFaults.inject}. */
export interface FaultOptions {
  /** How many matching requests fail (default 1; `Infinity` for all). */
  times?: number;
}

/** A registered fault, for inspection and removal. */
export interface InjectedFault {
  /** Which requests it applies to. */
  readonly match: FaultMatch;
  /** The failure injected. */
  readonly fault: Fault;
  /** Matching requests still to fail. */
  readonly remaining: number;
  /** Requests this fault has hit so far. */
  readonly hits: number;
  /**
   * `hang`: requests it holds now, not answered yet (0 for other kinds). A used-up `hang` stays
   * in `list()` while it holds one, so a test can still see and release it.
   */
  readonly holding: number;
  /** Unregisters the fault. Requests a `hang` holds stay held until `release()`. */
  remove(): void;
  /**
   * Resolves once the fault has hit `count` requests in all (at once if it already has): the
   * moment a request it applies to reached the simulator, as an event to await instead of a
   * sleep or a polling loop.
   */
  waitForHits(count: number): Promise<void>;
  /**
   * `hang` only: lets every request it holds go on (processed and answered normally), and the
   * ones it hits from now on through without holding them. Resolves once the requests it held
   * have been answered (at once for other kinds, which hold nothing).
   */
  release(): Promise<void>;
}

/** Fault injection control (`sandbox.faults`). */
export interface SandboxFaults {
  /** Makes the next `times` requests matching `match` fail with `fault`. First match wins. */
  inject(match: FaultMatch, fault: Fault, options?: FaultOptions): InjectedFault;
  /** Removes every injected fault. */
  clear(): void;
  /** Faults still registered. */
  list(): InjectedFault[];
}

interface Slot {
  match: FaultMatch;
  fault: Fault;
  remaining: number;
  hits: number;
  /** Awaiters of `waitForHits`. */
  waiters: Array<{ count: number; resolve: () => void }>;
  /** Settles when `release()` is called (what a `hang` waits for). */
  released: Promise<void>;
  release: () => void;
  /** `hang`: requests it took and has not answered yet (held, or about to be). */
  holding: number;
  /** Awaiters of the last held request's answer. */
  drained: Array<() => void>;
}

/** A fault the pipeline took for one request: for a `hang`, how to hold it and report its answer. */
export interface TakenFault {
  readonly fault: Fault;
  /** `hang`: resolves when the fault is released; the request counts as held from `take()` until `answered()`. */
  hold(): Promise<void>;
  /** `hang`: the held request has its answer. */
  answered(): void;
}

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  if (pattern === path) return true;
  const a = pattern.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((seg, i) => seg === b[i] || seg === '*' || seg.startsWith(':'));
}

/** The registry behind `sandbox.faults`, plus `take()` for the pipeline. */
export class FaultRegistry implements SandboxFaults {
  private slots: Slot[] = [];

  inject(match: FaultMatch, fault: Fault, options: FaultOptions = {}): InjectedFault {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slot: Slot = { match, fault, remaining: options.times ?? 1, hits: 0, waiters: [], released, release, holding: 0, drained: [] };
    this.slots.push(slot);
    return this.view(slot);
  }

  clear(): void {
    this.slots = [];
  }

  list(): InjectedFault[] {
    return this.slots.map((s) => this.view(s));
  }

  /** Consumes and returns the first fault matching this request, if any. */
  take(method: string, path: string): TakenFault | undefined {
    const slot = this.slots.find(
      (s) =>
        s.remaining > 0 && (s.match.method === undefined || s.match.method.toUpperCase() === method) && pathMatches(s.match.path, path),
    );
    if (!slot) return undefined;
    slot.remaining -= 1;
    slot.hits += 1;
    // A hang counts its request as held from here, so a used-up one stays listed until answered.
    if (slot.fault.kind === 'hang') slot.holding += 1;
    this.dropIfDone(slot);
    for (const w of slot.waiters.filter((x) => x.count <= slot.hits)) {
      slot.waiters.splice(slot.waiters.indexOf(w), 1);
      w.resolve();
    }
    return {
      fault: slot.fault,
      hold: () => slot.released,
      answered: () => {
        slot.holding -= 1;
        if (slot.holding > 0) return;
        this.dropIfDone(slot);
        for (const done of slot.drained.splice(0)) done();
      },
    };
  }

  /** Unregisters a fault with no request left to hit and none held. */
  private dropIfDone(slot: Slot): void {
    if (slot.remaining <= 0 && slot.holding === 0) this.slots = this.slots.filter((s) => s !== slot);
  }

  private view(slot: Slot): InjectedFault {
    const remove = (): void => {
      this.slots = this.slots.filter((s) => s !== slot);
    };
    return {
      match: slot.match,
      fault: slot.fault,
      get remaining() {
        return slot.remaining;
      },
      get hits() {
        return slot.hits;
      },
      get holding() {
        return slot.holding;
      },
      remove,
      waitForHits(count) {
        if (slot.hits >= count) return Promise.resolve();
        return new Promise<void>((resolve) => slot.waiters.push({ count, resolve }));
      },
      release() {
        slot.release();
        if (slot.holding === 0) return Promise.resolve();
        return new Promise<void>((resolve) => slot.drained.push(resolve));
      },
    };
  }
}
