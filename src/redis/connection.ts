import { createHash } from 'node:crypto';
import { positiveNumber } from '../core/checks.js';
import { InvalidArgumentError } from '../core/errors.js';
import { log, type Logger } from '../core/logger.js';

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
   * Receives one `warn` line when Redis stops answering and one `info` line when it answers
   * again, per outage of the connection: stores sharing one client share the outage and its
   * log line (a store without a logger uses the first one given on that client). Never
   * receives tokens, keys or bodies.
   */
  readonly logger?: Logger;
  /**
   * A Redis command not answered within this many ms counts as a failure and the in-memory
   * fallback answers instead (default 1000). A payment must not wait on a dead cache.
   */
  readonly commandTimeoutMs?: number;
  /** After a failure, Redis is skipped for this many ms before it is tried again (default 5000). */
  readonly retryAfterMs?: number;
}

/** Thrown internally when Redis does not answer within `commandTimeoutMs`. */
class RedisCommandTimeoutError extends Error {
  override name = 'RedisCommandTimeoutError';
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
  }
}

interface Health {
  down: boolean;
  retryAt: number;
  /** The first logger any store on this connection was given. */
  logger: Logger | undefined;
}

// Health is a property of the connection: stores sharing one client share one outage, so an
// outage is logged once per connection, not once per store.
const healthOf = new WeakMap<object, Health>();

/**
 * Runs Redis operations with a time bound and switches to the in-memory fallback while Redis
 * fails, logging the switch once. Internal to `src/redis`.
 */
export class RedisGuard {
  readonly redis: RedisClientLike;
  readonly #component: string;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #health: Health;

  constructor(component: string, options: RedisStoreOptions) {
    const redis = options?.redis;
    if (redis === null || typeof redis !== 'object' || typeof (redis as { call?: unknown }).call !== 'function') {
      throw new InvalidArgumentError(
        'redis',
        'must be a connected ioredis client (Redis or Cluster) or an object with its call(command, ...args) method.',
      );
    }
    this.redis = redis;
    this.#component = component;
    this.#logger = options.logger;
    this.#timeoutMs = positiveNumber('commandTimeoutMs', options.commandTimeoutMs, 1000);
    this.#retryAfterMs = positiveNumber('retryAfterMs', options.retryAfterMs, 5000);
    let health = healthOf.get(redis);
    if (health === undefined) {
      health = { down: false, retryAt: 0, logger: undefined };
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
   * `op` against Redis, or `fallback` when Redis is marked down or `op` fails or times out.
   * Only Redis failures are caught: `fallback` itself may throw.
   */
  async run<T>(op: (redis: RedisClientLike) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    const h = this.#health;
    if (h.down && Date.now() < h.retryAt) return fallback();
    let value: T;
    try {
      value = await withTimeout(op(this.redis), this.#timeoutMs);
    } catch (err) {
      this.#markDown(err);
      return fallback();
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

  /** Runs a Lua script by SHA, loading it on first use on each node. */
  script(redis: RedisClientLike, script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return redis.call('EVALSHA', script.sha, keys.length, ...keys, ...args).catch((err: unknown) => {
      if (!String((err as Error)?.message ?? err).includes('NOSCRIPT')) throw err;
      return redis.call('EVAL', script.source, keys.length, ...keys, ...args);
    });
  }

  #markDown(err: unknown): void {
    const h = this.#health;
    h.retryAt = Date.now() + this.#retryAfterMs;
    if (h.down) return;
    h.down = true;
    log(
      this.#logger ?? h.logger,
      'warn',
      `merchant-stablecoin/redis: Redis unreachable (${describe(err)}, seen by ${this.#component}); the Redis stores on this connection answer from this process's memory until Redis answers again. Fleet-wide sharing is suspended meanwhile (see docs/fleet.md).`,
      { component: this.#component },
    );
  }
}

/** A Lua script and its SHA1 (for EVALSHA). */
export class LuaScript {
  readonly source: string;
  readonly sha: string;
  constructor(source: string) {
    this.source = source;
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

/** A short, non-reversible digest for key names (no secret or long input in a key). */
export function keyDigest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

/** Validates a key prefix: non-empty, no whitespace or braces (braces are hash tags). */
export function checkPrefix(prefix: string | undefined, fallback: string): string {
  const p = prefix ?? fallback;
  if (typeof p !== 'string' || p === '' || /[\s{}]/.test(p))
    throw new InvalidArgumentError('prefix', 'must be a non-empty string without whitespace or braces.');
  return p;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisCommandTimeoutError(ms)), ms);
  });
  // A command that answers after its deadline must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
