/**
 * The commands of one store operation: each handed to the merchant's client only once it can be
 * written at once, and each failure named (command, first key) and classified.
 */
import { createHash } from 'node:crypto';
import { classify, RedisStoreError, storeErrorOf } from './failures.js';
import { notReadyStatus, statusChange, type StatusEvent } from './readiness.js';

/**
 * The part of a Redis client the commands use (the full contract, with its TSDoc, is
 * `RedisClientLike` in connection.ts).
 */
interface Client {
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/**
 * What an operation sends its commands through: a failure becomes a {@link RedisStoreError}
 * naming the command and its first key, and a missing script is loaded with EVAL. A command is
 * handed to the client only once the client can write it at once (status `ready`): never left in
 * ioredis' offline queue, to land after its caller was answered.
 */
export class RedisCommands {
  readonly #client: Client;
  /** The command last sent, named by a timeout. */
  last: { readonly command: string; readonly key: string | undefined } | undefined;
  /** True once a command was handed to the client: it may have reached Redis. */
  #handedOver = false;
  /** Why the operation was stopped before any command was handed over. */
  #stopped: RedisStoreError | undefined;
  #wake: (() => void) | undefined;
  /** True when the store's caller stopped it (not a sign of an outage). */
  stoppedByCaller = false;

  constructor(client: Client) {
    this.#client = client;
  }

  /**
   * Stops the operation unless one of its commands was already handed to the client. True when
   * stopped: nothing of it ever reaches Redis, and it rejects with `reason`.
   */
  stop(reason: RedisStoreError, byCaller = false): boolean {
    if (this.#handedOver) return false;
    if (this.#stopped === undefined) {
      this.#stopped = reason;
      this.stoppedByCaller = byCaller;
    }
    this.#wake?.();
    return true;
  }

  /** `command key... arg...`. */
  async call(command: string, keys: readonly string[], args: ReadonlyArray<string | number> = []): Promise<unknown> {
    this.last = { command, key: keys[0] };
    try {
      return await this.#send(command, ...keys, ...args);
    } catch (err) {
      throw storeErrorOf(err, command, keys[0], args);
    }
  }

  /** Runs a Lua script by SHA, loading it with EVAL on a node that does not know it yet. */
  async script(script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    this.last = { command: 'EVALSHA', key: keys[0] };
    try {
      return await this.#send('EVALSHA', script.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (classify(err).code !== 'NOSCRIPT') throw storeErrorOf(err, 'EVALSHA', keys[0], args);
    }
    this.last = { command: 'EVAL', key: keys[0] };
    try {
      return await this.#send('EVAL', script.source, keys.length, ...keys, ...args);
    } catch (err) {
      throw storeErrorOf(err, 'EVAL', keys[0], args, 'the script was not loaded (NOSCRIPT) and EVAL failed: ');
    }
  }

  /**
   * Waits until the client is ready, then hands the command over in the same tick (the status
   * cannot change in between). A connection (attempt) that closes first refuses it unsent: an
   * outage, noticed as soon as the client itself notices it.
   */
  async #send(command: string, ...args: Array<string | number>): Promise<unknown> {
    for (;;) {
      if (this.#stopped !== undefined) throw this.#stopped;
      const status = notReadyStatus(this.#client);
      if (status === undefined) break;
      if (status === 'end') throw this.#unsent('the client has closed its connection (status end)');
      const event = await new Promise<StatusEvent | undefined>((resolve) => {
        this.#wake = () => resolve(undefined);
        void statusChange(this.#client).then(resolve);
      });
      if (event === 'close' && this.#stopped === undefined && notReadyStatus(this.#client) !== undefined)
        throw this.#unsent(`the connection closed before it was ready (status ${notReadyStatus(this.#client)})`);
    }
    this.#handedOver = true;
    return this.#client.call(command, ...args);
  }

  #unsent(why: string): RedisStoreError {
    return new RedisStoreError('unreachable', `${why}; nothing was sent`, { ...this.last, unsent: true });
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
