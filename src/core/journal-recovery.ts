import type { EndpointDescriptor } from '../spec/endpoint.js';
import { ENDPOINTS } from '../spec/endpoints.js';
import { bucketOf, subLimitOf } from '../spec/rate-limits.js';
import type { PreparedCall } from './call.js';
import { nonNegativeInt, positiveInt } from './checks.js';
import type { JournalIntent } from './journal.js';
import { fieldsOf, neverResent, settles, wallClockNow, type JournalHook } from './journal-hook.js';
import { log, printable, type Logger } from './logger.js';
import { isSignedMethod } from './signing.js';
import type { ResponseMeta, WithResponse } from './types.js';

/** Options of `client.recover()`. */
export interface RecoverOptions {
  /**
   * Leave intents younger than this alone (ms; default 300 000, five minutes): they may belong to
   * a call still in flight in a live instance. No call outlives its deadline,
   * `timeoutMs × (maxRetries + 1)` from the moment it is made (90 s with the defaults; its record
   * in the journal, its waits and its attempts all fit in it: docs/going-to-production.md, "The
   * deadline of a call"). Keep `minAgeMs` above the longest deadline your calls are given (per-call
   * `timeoutMs` and `maxRetries` included), plus the largest difference between your hosts' wall
   * clocks (`createdAt` is the recording host's). Pass 0 when no other instance can be sending,
   * e.g. a single instance at start-up.
   */
  readonly minAgeMs?: number;
  /**
   * Resend only intents recorded less than 24 hours (the spec's idempotency window) minus this
   * margin ago (ms; default 3 600 000, one hour). After the window the same key is a new request,
   * so an intent near its end is reported instead of resent. The margin covers the clocks
   * involved (the recording host's, this host's, the service's: the SDK itself signs with an
   * offset of up to `maxClockSkewMs`, one hour by default) and the time the resend itself takes.
   */
  readonly windowMarginMs?: number;
  /**
   * How long (ms) an intent this instance claimed is reserved for it (default 300 000): another
   * instance recovering at the same time never sends it meanwhile. An intent whose resend ended
   * without a definitive outcome stays open, and is claimable again after this.
   */
  readonly leaseMs?: number;
  /** Stops the recovery: the resend in flight is aborted, no further intent is claimed. */
  readonly signal?: AbortSignal;
}

/** Fields every recovered intent has. */
export interface RecoveredIntentBase {
  /** The intent as the journal held it. */
  readonly intent: JournalIntent;
  /** Whether the intent was settled (removed from the journal). When false it stays open. */
  readonly settled: boolean;
}

/** An intent sent again: its result is the original operation's (a replay, or its first execution). */
export interface IntentResent extends RecoveredIntentBase {
  /** Sent again with its key and bytes, and answered 2xx. */
  readonly outcome: 'resent';
  /** The validated result: the order the intent created (e.g. a `WithdrawalOrder`). */
  readonly result: unknown;
  /** Response metadata; `replayed` is true when the service had executed it before the crash. */
  readonly response: ResponseMeta;
}

/** An intent sent again whose resend failed. */
export interface IntentFailed extends RecoveredIntentBase {
  /** Sent again, and the resend failed. */
  readonly outcome: 'failed';
  /**
   * The resend's error. A business answer (`insufficient_balance`, ...) settles the intent: the
   * operation did not happen. An unknown outcome (a timeout, a 5xx) leaves it open (`settled:
   * false`) for a later `recover()`.
   */
  readonly error: unknown;
}

/** An intent reported for a check instead of being sent again. */
export interface IntentToCheck extends RecoveredIntentBase {
  /**
   * - `expired`: recorded too long ago (past the window minus `windowMarginMs`): the same key would
   *   be a new request. Settled.
   * - `withheld`: never sent again: the service counts the endpoint's failures against the
   *   customer (a card activation; its body, with the PIN, was never kept). `check` says what to
   *   read (the card) and what its status means. Settled.
   * - `skipped`: this client cannot send it (an endpoint this SDK version does not know, or an
   *   intent of another scope returned by a faulty journal). Left open.
   */
  readonly outcome: 'expired' | 'withheld' | 'skipped';
  /** What to check to learn whether the operation happened. */
  readonly check: string;
}

/** What `recover()` did with one intent. */
export type RecoveredIntent = IntentResent | IntentFailed | IntentToCheck;

/** What `client.recover()` found and did, one entry per intent it claimed, oldest first. */
export interface RecoveryReport {
  /** The intents claimed, in the order they were handled. */
  readonly intents: readonly RecoveredIntent[];
}

/** What recovery needs from the client. */
export interface RecoveryDeps {
  readonly hook: JournalHook;
  readonly basePath: string;
  readonly logger: Logger | undefined;
  /** Runs one prepared call through the attempt loop and reads its result. */
  send<T>(call: PreparedCall, endpoint: EndpointDescriptor<T>): Promise<WithResponse<T>>;
}

/** The spec's idempotency window (Limits > Other constants): 24 hours. */
const WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Claims the scope's open intents one at a time and finishes each: sent again with its key and
 * bytes (fresh nonce and timestamp: every attempt is signed anew) when inside the window, else
 * reported for a check. One claim at a time spreads the work over instances recovering together,
 * and keeps each lease no longer than one resend.
 */
export async function recoverIntents(deps: RecoveryDeps, options: RecoverOptions = {}): Promise<RecoveryReport> {
  const minAgeMs = nonNegativeInt('minAgeMs', options.minAgeMs, 300_000);
  const marginMs = nonNegativeInt('windowMarginMs', options.windowMarginMs, 3_600_000);
  const leaseMs = positiveInt('leaseMs', options.leaseMs, 300_000);
  const scope = await deps.hook.scope();
  const intents: RecoveredIntent[] = [];
  const seen = new Set<string>();
  while (options.signal?.aborted !== true) {
    const now = wallClockNow();
    const [intent] = await deps.hook.journal.claim({ scope, createdBefore: now - minAgeMs, leaseMs, limit: 1 });
    // A journal that hands out an intent again within its lease would loop for ever: stop there.
    if (intent === undefined || seen.has(intent.key)) break;
    seen.add(intent.key);
    const expired = now - intent.createdAt >= WINDOW_MS - marginMs;
    const recovered = await recoverOne(deps, intent, intent.scope === scope ? expired : undefined, options.signal);
    const { error } = recovered as { error?: { code?: unknown; name?: unknown } };
    log(deps.logger, 'info', `recovery: intent ${recovered.outcome}`, {
      ...fieldsOf(intent),
      settled: recovered.settled,
      replayed: (recovered as Partial<IntentResent>).response?.replayed,
      requestId: (recovered as Partial<IntentResent>).response?.requestId,
      error: typeof error?.name === 'string' ? error.name : undefined,
      // A code is the server's text: escaped before it is printed.
      code: typeof error?.code === 'string' ? printable(error.code) : undefined,
      check: (recovered as Partial<IntentToCheck>).check,
    });
    intents.push(recovered);
  }
  return { intents };
}

/** One claimed intent: resent, or reported. `expired` is undefined for an intent of another scope. */
async function recoverOne(
  deps: RecoveryDeps,
  intent: JournalIntent,
  expired: boolean | undefined,
  signal: AbortSignal | undefined,
): Promise<RecoveredIntent> {
  const endpoint = ENDPOINTS.find((e) => e.id === intent.endpoint);
  if (endpoint === undefined || expired === undefined) {
    const why = endpoint === undefined ? 'endpoint unknown to this SDK version' : 'another scope';
    return { intent, outcome: 'skipped', settled: false, check: `not sent by this client (${why}): ${checkFor(intent)}` };
  }
  // A lockout endpoint's intent is never resent, whatever its record says (one written by an older version).
  const withheld = intent.withheld || neverResent(endpoint);
  if (withheld || expired) {
    const check = endpoint.lockout === undefined ? checkFor(intent) : withParams(endpoint.lockout.check, endpoint.path, intent.path);
    return { intent, outcome: withheld ? 'withheld' : 'expired', check, settled: await deps.hook.settle(intent) };
  }
  try {
    const { data, response } = await deps.send(preparedOf(intent, endpoint, deps.basePath, signal), endpoint);
    return { intent, outcome: 'resent', result: data, response, settled: await deps.hook.settle(intent) };
  } catch (error) {
    return { intent, outcome: 'failed', error, settled: settles(error, endpoint) && (await deps.hook.settle(intent)) };
  }
}

/** The intent as a call: its own path, body bytes and key; the bucket from its path. */
function preparedOf(intent: JournalIntent, endpoint: EndpointDescriptor<unknown>, basePath: string, signal?: AbortSignal): PreparedCall {
  const filled = intent.path.startsWith(basePath) ? intent.path.slice(basePath.length) : intent.path;
  const member = intent.member ?? undefined;
  return {
    // The span and log lines of a resend say it is one.
    name: `recover ${endpoint.id.replace(/^member\./, '')}`,
    route: endpoint.path,
    method: intent.method,
    path: intent.path,
    body: intent.body === null ? undefined : new TextEncoder().encode(intent.body),
    signed: isSignedMethod(intent.method),
    idempotencyKey: intent.key,
    member,
    bucket: bucketOf(intent.method, filled),
    subKey: subLimitOf(intent.method, filled, member),
    extraHeaders: undefined,
    options: signal === undefined ? undefined : { signal },
    secrets: [],
  };
}

/**
 * Where to look when an intent is not sent again: the object's GET where the spec has one (cards,
 * remittances), else the balances the operation moves (the spec shows no GET of a withdrawal, a
 * conversion or a payment by id; the idempotency key identifies the operation to support).
 */
function checkFor(intent: JournalIntent): string {
  const object = /^(.*\/v1\/(?:cards|remittances)\/[^/?]+)\//.exec(intent.path);
  if (object !== null) return `GET ${object[1]} shows whether it happened`;
  if (intent.endpoint === 'member.kyc.quickBind') return 'GET /v1/kyc (same member) shows whether the binding was made';
  const where = intent.endpoint.startsWith('member.')
    ? 'GET /v1/balances (same member; a withdrawal sits in withdrawing)'
    : 'GET /v1/merchant/balances';
  return `no GET by id in the spec: ${where} shows whether the funds moved; quote the idempotency key to support`;
}

/** `text` with the route's parameters (`{id}`) replaced by the intent's: `GET /v1/cards/crd_1`. */
function withParams(text: string, route: string, path: string): string {
  const names: string[] = [];
  const source = route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/?]+)'));
  const values = new RegExp(`${source}(?:\\?|$)`).exec(path);
  if (values === null) return text;
  return names.reduce((t, name, i) => t.replaceAll(`{${name}}`, values[i + 1]!), text);
}
