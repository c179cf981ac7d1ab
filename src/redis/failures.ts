import { MerchantSdkError } from '../core/errors/errors.js';

/**
 * Why a Redis command of a fleet store failed:
 * - `unreachable`: no answer (connection refused or closed, or no reply within `commandTimeoutMs`);
 * - `unavailable`: Redis answered that it cannot serve now (`READONLY` from a replica or a demoted
 *   master during a failover, `LOADING` after a restart, `BUSY`, `MASTERDOWN`, `CLUSTERDOWN`,
 *   `TRYAGAIN`): an outage that ends on its own;
 * - `misconfigured`: Redis refused the command and will refuse it again until someone changes its
 *   configuration (`NOPERM` from an ACL, `CROSSSLOT`, `WRONGTYPE`, `NOSCRIPT` that `EVAL` could
 *   not repair, `OOM` when `maxmemory` is reached under `noeviction`, `MISCONF`, `NOAUTH`,
 *   `WRONGPASS`, an unknown or disabled command, any other error reply).
 */
export type RedisFailureKind = 'unreachable' | 'unavailable' | 'misconfigured';

/**
 * A Redis command of a fleet store failed. It names the command and the key (key names hold no
 * secret), never an argument value (a token, say), and keeps no reference to the client's own
 * error (ioredis attaches the command's arguments to it).
 *
 * The webhook event store throws it from `claim` (the receiver answers 503 and the service
 * delivers again); the intent journal throws it from `record`, `settle` and `claim` (a
 * money-moving call then fails before sending, with it as `cause`); the token store and the
 * rate limiter log it and answer from memory.
 */
export class RedisStoreError extends MerchantSdkError {
  /** Class name, `RedisStoreError`. */
  override name = 'RedisStoreError';
  /** What kind of failure: an outage (`unreachable`, `unavailable`) or a configuration mistake. */
  readonly kind: RedisFailureKind;
  /** The Redis error code (`NOPERM`, `READONLY`, ...), when Redis answered one. */
  readonly code: string | undefined;
  /** The command that failed (`EVALSHA`, `GET`, ...), when known. */
  readonly command: string | undefined;
  /** The first key of that command, when it had one. */
  readonly key: string | undefined;
  /**
   * `false` when the command certainly did not run: Redis answered it with an error (`code` set:
   * a refusal, or a node that cannot serve now), the client could not write it (a closed
   * connection without an offline queue), or the store did not send it (Redis was considered
   * down, or the client's connection was not ready within the time bound: a command is never
   * left in the client's offline queue). `undefined` when it was sent and no answer came: it may have run. The intent journal's
   * contract reads it: a `record` that did not run stored nothing.
   */
  readonly executed: false | undefined;

  /** @internal */
  constructor(
    kind: RedisFailureKind,
    detail: string,
    at: { code?: string | undefined; command?: string | undefined; key?: string | undefined; unsent?: boolean },
  ) {
    super(messageOf(kind, detail, at.command, at.key));
    this.kind = kind;
    this.code = at.code;
    this.command = at.command;
    this.key = at.key;
    this.executed = at.code === undefined && at.unsent !== true ? undefined : false;
  }
}

function messageOf(kind: RedisFailureKind, detail: string, command: string | undefined, key: string | undefined): string {
  const what = command === undefined ? 'a command' : key === undefined ? command : `${command} on ${key}`;
  switch (kind) {
    case 'misconfigured':
      return `Redis refused ${what}: ${detail}. A configuration mistake, not an outage: see "What Redis must allow" in docs/fleet.md.`;
    case 'unavailable':
      return `Redis cannot serve ${what} now: ${detail}.`;
    case 'unreachable':
      return `Redis unreachable (${what}): ${detail}.`;
  }
}

// Replies of a node that cannot serve now, and will again without anyone's help.
const UNAVAILABLE = new Set(['READONLY', 'LOADING', 'BUSY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'NOREPLICAS', 'UNBLOCKED']);
// Error codes Redis answers with (a client that does not name its reply errors is read by these).
const REPLY_CODES = new Set([
  ...UNAVAILABLE,
  'ERR',
  'NOPERM',
  'CROSSSLOT',
  'WRONGTYPE',
  'NOSCRIPT',
  'OOM',
  'MISCONF',
  'NOAUTH',
  'WRONGPASS',
  'EXECABORT',
  'MOVED',
  'ASK',
  'NOPROTO',
  'BUSYKEY',
  'NOGROUP',
]);

/** ioredis' words for a command it could not write (a closed connection, no offline queue): never sent. */
const NOT_WRITTEN = /^Stream isn't writeable/;

/** Redis 7.0 reports an ACL refusal inside a script as ERR with one of these texts. */
const SCRIPT_ACL = /can't run this command|can't access at least one of the (keys|channels)/;

/**
 * The Redis error code of a failure, and its kind. An error reply starts with an upper-case
 * code (`NOPERM this user has no permissions ...`); anything else (a socket error, a closed
 * connection, a timeout) means no answer.
 */
export function classify(err: unknown): { kind: RedisFailureKind; code: string | undefined } {
  const message = messageText(err);
  const code = /^([A-Z][A-Z_]{1,31})(?=\s|$)/.exec(message)?.[1];
  const isReply = code !== undefined && ((err as { name?: unknown } | null)?.name === 'ReplyError' || REPLY_CODES.has(code));
  if (!isReply) return { kind: 'unreachable', code: undefined };
  if (code === 'ERR' && SCRIPT_ACL.test(message)) return { kind: 'misconfigured', code: 'NOPERM' };
  if (UNAVAILABLE.has(code)) return { kind: 'unavailable', code };
  return { kind: 'misconfigured', code };
}

/**
 * The failure as a {@link RedisStoreError}: the first line of the reply, at most 300 characters,
 * with every argument value of the command masked (Redis does not echo values today; this keeps
 * it so if it ever does).
 */
export function storeErrorOf(
  err: unknown,
  command: string,
  key: string | undefined,
  values: ReadonlyArray<string | number>,
  lead = '',
): RedisStoreError {
  if (err instanceof RedisStoreError) return err;
  const { kind, code } = classify(err);
  let detail = lead + messageText(err).split('\n')[0]!.trim();
  for (const v of values) {
    const text = String(v);
    if (text.length >= 4) detail = detail.split(text).join('***');
  }
  if (detail.length > 300) detail = `${detail.slice(0, 300)}...`;
  if (kind === 'unreachable' && detail === '') detail = 'no answer';
  return new RedisStoreError(kind, detail, { code, command, key, unsent: NOT_WRITTEN.test(messageText(err)) });
}

/**
 * `failure` as the error of a command the store did not send (Redis was considered down): the
 * same kind, code and message, with `executed: false`.
 */
export function notSent(failure: RedisStoreError): RedisStoreError {
  if (failure.executed === false) return failure;
  const copy = Object.create(Object.getPrototypeOf(failure) as object) as RedisStoreError;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(failure));
  Object.defineProperty(copy, 'executed', { value: false, enumerable: true });
  return copy;
}

function messageText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : String(err);
}
