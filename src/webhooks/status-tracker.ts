import { positiveInt } from '../core/errors/setting-checks.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import { dataFieldsOf, type WebhookEvent } from './events.js';
import { DEFAULT_TERMINAL_STATES } from './terminal-states.js';

/** The status a {@link StatusTracker} holds for one resource. */
export interface TrackedStatus {
  /** Current status. */
  readonly status: string;
  /**
   * Highest `status_version` seen for the resource; `undefined` while only polls were applied.
   * After a poll moved the status, it stays the baseline that later events must exceed.
   */
  readonly statusVersion: number | undefined;
  /** Where the current status came from. */
  readonly source: 'event' | 'poll';
  /** Whether the status is terminal for the resource kind. */
  readonly terminal: boolean;
  /** When the tracker recorded the status (tracker clock, ms). */
  readonly updatedAt: number;
}

/** Settings of {@link StatusTracker}. */
export interface StatusTrackerOptions {
  /**
   * Terminal states per resource kind, merged over {@link DEFAULT_TERMINAL_STATES} (a kind given
   * here replaces the default list of that kind).
   */
  readonly terminalStates?: Readonly<Record<string, readonly string[]>>;
  /** Clock in ms (default `Date.now`): `updatedAt`, and what `requestedAt` is compared with. */
  readonly now?: () => number;
  /**
   * Most resources held (default 100 000). Past it, the resource updated least recently is
   * forgotten: its next event or poll is then taken as its first (no version to compare with),
   * so size it above the resources whose events may still arrive late.
   */
  readonly maxEntries?: number;
}

/** Options of {@link StatusTracker.applyPolled}. */
export interface PolledStatusOptions {
  /**
   * When the poll request was sent (tracker clock, ms). A poll sent before the tracker last
   * changed the resource is late and is ignored: it may describe an older state.
   */
  readonly requestedAt?: number;
}

/**
 * The key a tracker uses for the resource an event points at: `<data.object>:<data.id>`, e.g.
 * `card:crd_123`. The part before the first `:` is the resource kind used for terminal states.
 */
export function eventResourceKey(event: WebhookEvent): string {
  // A non-conforming event may lack either field: the key then has an empty part.
  const { object = '', id = '' } = dataFieldsOf(event);
  return `${object}:${id}`;
}

/**
 * Merges resource statuses forward only (spec, Events: "Events carry `status_version`, which
 * lets a receiver merge forward only. Polling responses that arrive late must not move a state
 * backwards").
 *
 * Keys are `<kind>:<id>` (see {@link eventResourceKey}); the kind selects the terminal states.
 * In memory, bounded by `maxEntries` (the least recently updated resource is forgotten first); a
 * fleet keeps the same rule in its database with a conditional update
 * (`UPDATE ... SET status = $s, status_version = $v WHERE id = $id AND status_version < $v`).
 */
export class StatusTracker {
  readonly #entries = new Map<string, TrackedStatus>();
  readonly #terminal: Readonly<Record<string, readonly string[]>>;
  readonly #now: () => number;
  readonly #maxEntries: number;

  /** @param options - Terminal states per kind, clock and size bound. */
  constructor(options: StatusTrackerOptions = {}) {
    this.#terminal = { ...DEFAULT_TERMINAL_STATES, ...options.terminalStates };
    this.#now = options.now ?? Date.now;
    this.#maxEntries = positiveInt('maxEntries', options.maxEntries, 100_000);
  }

  /** Number of resources held. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Applies a versioned status (from an event). It moves only to a higher `statusVersion`
   * than any seen for the resource, and never out of a terminal state.
   *
   * @returns Whether the update was applied (the first one for the resource, or a higher
   *   version); false for an older or equal version, or an attempt to leave a terminal state.
   * @throws InvalidArgumentError when `statusVersion` is not an integer.
   */
  apply(resourceKey: string, status: string, statusVersion: number): boolean {
    if (!Number.isInteger(statusVersion)) throw new InvalidArgumentError('statusVersion', 'must be an integer.');
    const current = this.#entries.get(resourceKey);
    if (current === undefined) {
      this.#set(resourceKey, status, statusVersion, 'event');
      return true;
    }
    if (current.statusVersion !== undefined && statusVersion <= current.statusVersion) return false;
    if (current.terminal) {
      // Terminal by the spec: remember the version so that older events stay refused.
      if (current.status !== status) {
        this.#entries.set(resourceKey, { ...current, statusVersion });
        return false;
      }
    }
    this.#set(resourceKey, status, statusVersion, 'event');
    return true;
  }

  /**
   * Applies the status an event carries, keyed by {@link eventResourceKey}; same result as
   * {@link StatusTracker.apply}. A non-conforming event without a string `object`, `id` and
   * `status` and an integer `status_version` is not applied (false).
   */
  applyEvent(event: WebhookEvent): boolean {
    const { object, id, status, status_version: version } = dataFieldsOf(event);
    if (object === undefined || id === undefined || status === undefined || version === undefined) return false;
    return this.apply(eventResourceKey(event), status, version);
  }

  /**
   * Applies a polled status (a `GET` result, which carries no version). Rule: it never moves a
   * terminal state; a poll without `requestedAt` never replaces a status that an event set (a
   * versioned state outranks an unversioned read, which may be late: the spec's "polling
   * responses that arrive late must not move a state backwards"); with `requestedAt`, a poll
   * sent before the last change is ignored; otherwise the poll wins. The version baseline is
   * kept, so that older events remain refused.
   *
   * @returns Whether the tracked status changed.
   */
  applyPolled(resourceKey: string, status: string, options: PolledStatusOptions = {}): boolean {
    const current = this.#entries.get(resourceKey);
    if (current === undefined) return this.#set(resourceKey, status, undefined, 'poll');
    if (current.terminal || current.status === status) return false;
    if (options.requestedAt === undefined ? current.source === 'event' : options.requestedAt < current.updatedAt) return false;
    return this.#set(resourceKey, status, current.statusVersion, 'poll');
  }

  /** The tracked status of a resource, if any. */
  get(resourceKey: string): TrackedStatus | undefined {
    return this.#entries.get(resourceKey);
  }

  /** Forgets a resource. */
  delete(resourceKey: string): boolean {
    return this.#entries.delete(resourceKey);
  }

  /** Whether `status` is terminal for the kind of `resourceKey` (the part before `:`). */
  isTerminal(resourceKey: string, status: string): boolean {
    const colon = resourceKey.indexOf(':');
    const kind = colon === -1 ? resourceKey : resourceKey.slice(0, colon);
    return Object.hasOwn(this.#terminal, kind) && (this.#terminal[kind] ?? []).includes(status);
  }

  #set(resourceKey: string, status: string, statusVersion: number | undefined, source: 'event' | 'poll'): boolean {
    const current = this.#entries.get(resourceKey);
    const changed = current === undefined || current.status !== status;
    // Re-inserted at the end: Map order is then the order of last update, oldest first.
    this.#entries.delete(resourceKey);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(resourceKey, {
      status,
      statusVersion,
      source,
      terminal: this.isTerminal(resourceKey, status),
      updatedAt: this.#now(),
    });
    return changed;
  }
}
