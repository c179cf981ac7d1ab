/**
 * Whether the merchant's client can write a command now, and a wait until it can. ioredis puts a
 * command it cannot write (any status but `ready`) in its offline queue and sends it whenever the
 * connection comes up, however late: a journal record or an event claim must never land like
 * that after its call or delivery was answered. Read per command, without touching the client's
 * options (`enableOfflineQueue` is the merchant's, for their own uses of the same client).
 */

/** The parts of an ioredis `Redis` or `Cluster` read here; a client without `status` counts as ready. */
interface ReadinessLike {
  readonly status?: unknown;
  connect?: () => Promise<unknown>;
  on?: (event: string, listener: () => void) => unknown;
  removeListener?: (event: string, listener: () => void) => unknown;
}

/**
 * The client's status when a command given to it now would not be written at once (`connecting`,
 * `reconnecting`, `end`, ...), or `undefined` when it would be (`ready`, or a client that has no
 * `status`: anything with a `call` method is taken at its word).
 */
export function notReadyStatus(client: object): string | undefined {
  const status = (client as ReadinessLike).status;
  if (typeof status !== 'string' || status === 'ready') return undefined;
  return status;
}

/** What ended a wait: the client became ready, closed for good, or lost a connection (attempt). */
export type StatusEvent = 'ready' | 'end' | 'close';

/** One wait per client: a single set of listeners, however many commands wait on it. */
const changes = new WeakMap<object, Promise<StatusEvent>>();

/**
 * Resolves with the client's next `ready`, `end` or `close` event. A client created with
 * `lazyConnect` (status `wait`) is asked to connect, as ioredis does on a first command. Without
 * `on`, it never resolves: the caller's time bound ends the wait.
 */
export function statusChange(client: object): Promise<StatusEvent> {
  const c = client as ReadinessLike;
  let change = changes.get(client);
  if (change !== undefined) return change;
  change = new Promise<StatusEvent>((resolve) => {
    if (typeof c.on !== 'function') return;
    const listeners = EVENTS.map((event) => [event, () => done(event)] as const);
    const done = (event: StatusEvent): void => {
      for (const [name, listener] of listeners) c.removeListener?.(name, listener);
      changes.delete(client);
      resolve(event);
    };
    for (const [name, listener] of listeners) c.on(name, listener);
  });
  changes.set(client, change);
  // A failed connect shows as a close (and a status that is not ready); the wait reports it.
  if (c.status === 'wait' && typeof c.connect === 'function')
    void Promise.resolve()
      .then(() => c.connect?.())
      .catch(() => undefined);
  return change;
}

const EVENTS: readonly StatusEvent[] = ['ready', 'end', 'close'];
