import { positiveNumber } from '../core/errors/setting-checks.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import { log, type Logger } from '../core/telemetry/logger.js';
import { RedisCommands } from './commands.js';
import { notSent, RedisStoreError } from './failures.js';
import { RedisKeyspace } from './keyspace.js';
import { notReadyStatus } from './readiness.js';

/**
 * The part of a Redis client the fleet stores use: ioredis' generic `call(command, ...args)`,
 * which both `Redis` and `Cluster` have. Pass your own client instance; the SDK never creates
 * a connection and never imports ioredis at run time.
 *
 * Keys of one script always share a hash slot (`{...}` hash tags), so a `Cluster` works too.
 */
export interface RedisClientLike {
  /** Sends one command (`EVALSHA`, `GET`, ...) with its arguments and resolves with the reply. */
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/** Settings every fleet store shares. */
export interface RedisStoreOptions {
  /** A connected ioredis `Redis` or `Cluster` (or anything with its `call` method). */
  readonly redis: RedisClientLike;
  /**
   * Start of every key the store writes (default `merchant-stablecoin`): keys are
   * `<prefix>:...`, so that one ACL key pattern, `~<prefix>:*`, grants all of them (see "What
   * Redis must allow" in docs/fleet.md). No whitespace, braces or glob characters. Every instance
   * of a fleet passes the same prefix.
   */
  readonly prefix?: string;
  /**
   * Receives one `warn` line when Redis stops answering and one `info` line when it answers
   * again, per outage of the connection: stores sharing one client share the outage and its
   * log line (a store without a logger uses the first one given on that client). Receives an
   * `error` line when Redis refuses a command for a reason only its configuration can fix
   * (`NOPERM`, `CROSSSLOT`, `OOM`, ...), naming the code, the command and the key. Never
   * receives tokens or bodies.
   */
  readonly logger?: Logger;
  /**
   * A Redis command not answered within this many ms counts as a failure (default 1000), and so
   * does a connection that is not ready within it (the command waits for the client's `ready`,
   * then is never sent, never left in its offline queue): the
   * token store and the rate limiter answer from memory, the event store refuses the delivery
   * (503), the intent journal refuses the money-moving call before sending it. A payment must not
   * wait on a dead cache.
   */
  readonly commandTimeoutMs?: number;
  /** After a failure, Redis is skipped for this many ms before it is tried again (default 5000). */
  readonly retryAfterMs?: number;
}

interface Health {
  down: boolean;
  /** performance.now() after which Redis is tried again. */
  retryAt: number;
  /** The failure that put the connection down. */
  lastFailure: RedisStoreError | undefined;
  /** The first logger any store on this connection was given. */
  logger: Logger | undefined;
}

// Health is a property of the connection: stores sharing one client share one outage, so an
// outage is logged once per connection, not once per store.
const healthOf = new WeakMap<object, Health>();

/** A configuration mistake is logged again after this long if it persists. */
const MISCONFIGURED_RELOG_MS = 5 * 60_000;

/** How one {@link RedisGuard.run} may wait. */
export interface RunOptions {
  /** Wait this many ms for the answer instead of `commandTimeoutMs`. */
  readonly patienceMs?: number;
  /** Ask Redis even while the connection is considered down. */
  readonly evenIfDown?: boolean;
  /** Given the operation's commands before it starts, so that the store can stop it ({@link RedisCommands.stop}). */
  readonly started?: (commands: RedisCommands) => void;
}

/**
 * Runs Redis operations with a time bound, tells an outage (no answer, or a node that cannot
 * serve now) from a configuration mistake (a refusal only an operator can fix), and switches to
 * the store's fallback while Redis fails, logging each once. Internal to `src/redis`.
 */
export class RedisGuard {
  readonly redis: RedisClientLike;
  /** The key names of the store. */
  readonly keys: RedisKeyspace;
  readonly #component: string;
  readonly #misconfiguredNote: string;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #health: Health;
  /** When each configuration mistake was last logged (performance.now()). */
  readonly #reported = new Map<string, number>();

  /**
   * @param component - The store, as log lines name it (`the token store`).
   * @param misconfiguredNote - What the store does when Redis refuses a command, for the log line.
   */
  constructor(component: string, options: RedisStoreOptions, misconfiguredNote: string) {
    const redis = options?.redis;
    if (redis === null || typeof redis !== 'object' || typeof (redis as { call?: unknown }).call !== 'function') {
      throw new InvalidArgumentError(
        'redis',
        'must be a connected ioredis client (Redis or Cluster) or an object with its call(command, ...args) method.',
      );
    }
    this.redis = redis;
    this.keys = new RedisKeyspace(options.prefix);
    this.#component = component;
    this.#misconfiguredNote = misconfiguredNote;
    this.#logger = options.logger;
    this.#timeoutMs = positiveNumber('commandTimeoutMs', options.commandTimeoutMs, 1000);
    this.#retryAfterMs = positiveNumber('retryAfterMs', options.retryAfterMs, 5000);
    let health = healthOf.get(redis);
    if (health === undefined) {
      health = { down: false, retryAt: 0, lastFailure: undefined, logger: undefined };
      healthOf.set(redis, health);
    }
    health.logger ??= options.logger;
    this.#health = health;
  }

  /** True while Redis is considered unreachable (the fallback answers). */
  get degraded(): boolean {
    return this.#health.down;
  }

  /**
   * `op` against Redis, or `fallback(failure)` when Redis is considered down or `op` fails or
   * times out. An outage puts the connection down for `retryAfterMs` (every store on it then
   * skips Redis); a configuration mistake does not (the other stores keep using Redis) and is
   * logged as what it is. `fallback` may throw (the event store does).
   */
  async run<T>(
    op: (redis: RedisCommands) => Promise<T>,
    fallback: (failure: RedisStoreError) => T | Promise<T>,
    options: RunOptions = {},
  ): Promise<T> {
    const h = this.#health;
    // Skipped while down: this command was not sent, whatever the failure that put Redis down.
    if (h.down && !options.evenIfDown && performance.now() < h.retryAt && h.lastFailure !== undefined)
      return fallback(notSent(h.lastFailure));
    const commands = new RedisCommands(this.redis);
    options.started?.(commands);
    let value: T;
    try {
      value = await withTimeout(op(commands), options.patienceMs ?? this.#timeoutMs, commands, this.redis);
    } catch (err) {
      const failure =
        err instanceof RedisStoreError
          ? err
          : new RedisStoreError('misconfigured', `unexpected reply (${errorText(err)})`, commands.last ?? {});
      // Stopped by the store's caller before anything was sent: no news about Redis.
      if (commands.stoppedByCaller) return fallback(failure);
      if (failure.kind === 'misconfigured') this.#reportMisconfigured(failure);
      else this.#markDown(failure);
      return fallback(failure);
    }
    if (h.down) {
      h.down = false;
      log(
        this.#logger ?? h.logger,
        'info',
        `merchant-stablecoin/redis: Redis answers again (seen by ${this.#component}); the Redis stores on this connection share state across the fleet again.`,
      );
    }
    return value;
  }

  #markDown(failure: RedisStoreError): void {
    const h = this.#health;
    h.retryAt = performance.now() + this.#retryAfterMs;
    h.lastFailure = failure;
    if (h.down) return;
    h.down = true;
    const hint =
      failure.code === 'READONLY'
        ? ' The connection reached a replica (or a master a failover demoted): the client must reconnect to the current master.'
        : '';
    log(
      this.#logger ?? h.logger,
      'warn',
      `merchant-stablecoin/redis: ${failure.message}${hint} Seen by ${this.#component}. Until Redis answers again the token store and the rate limiter on this connection answer from this process's memory, the webhook event store refuses deliveries (503) unless told to process them anyway, the intent journal refuses money-moving calls before sending, and the payout store's calls fail (see "When Redis is down" in docs/fleet.md).`,
      { component: this.#component, code: failure.code, command: failure.command },
    );
  }

  #reportMisconfigured(failure: RedisStoreError): void {
    const signature = `${failure.code} ${failure.command}`;
    const now = performance.now();
    const last = this.#reported.get(signature);
    if (last !== undefined && now - last < MISCONFIGURED_RELOG_MS) return;
    this.#reported.set(signature, now);
    const acl =
      failure.code === 'NOPERM'
        ? ` The fleet's user needs the key pattern ${this.keys.aclPattern} and the commands docs/fleet.md lists.`
        : '';
    log(
      this.#logger ?? this.#health.logger,
      'error',
      `merchant-stablecoin/redis: ${failure.message}${acl} Seen by ${this.#component}; ${this.#misconfiguredNote}`,
      { component: this.#component, code: failure.code, command: failure.command, key: failure.key },
    );
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, commands: RedisCommands, client: object): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const at = commands.last ?? {};
      const status = notReadyStatus(client) ?? 'ready';
      const waiting = new RedisStoreError(
        'unreachable',
        `the connection was not ready within ${Math.round(ms)} ms (status ${status}); nothing was sent`,
        {
          ...at,
          unsent: true,
        },
      );
      // Not handed over yet: stopped, so that it never goes out later. Handed over: it may run.
      reject(commands.stop(waiting) ? waiting : new RedisStoreError('unreachable', `no answer within ${Math.round(ms)} ms`, at));
    }, ms);
  });
  // A command that answers after its deadline must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
