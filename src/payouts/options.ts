import type { MerchantClient } from '../client.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import { refuseUnknownOptions } from '../core/errors/option-names.js';
import type { Logger } from '../core/telemetry/logger.js';
import type { OpenTelemetryApi } from '../core/telemetry/otel-api.js';
import type { PayoutRecord, PayoutState } from './record.js';
import type { PayoutStore } from './store.js';

/** What the merchant's pay function or payment lookup says about the on-chain payment. */
export type PaymentReport =
  | {
      /** Paid: the chain reference is recorded before confirm is sent. */
      readonly outcome: 'paid';
      /** The payment's chain reference (a transaction hash). */
      readonly chainRef: string;
    }
  | {
      /**
       * Definitely not paid: never broadcast, or reverted with finality. Not "dropped from a
       * mempool": a dropped transaction can still be mined. Fail is sent, and the member's funds
       * return to `available`.
       */
      readonly outcome: 'not_paid';
      /** Why, for the record. */
      readonly reason: string;
    };

/** What the pay function is given besides the payout. */
export interface PayContext {
  /** Aborted when the hand-out's lease runs out: the payout then goes to a person. */
  readonly signal: AbortSignal;
}

/** One state change, as `onStateChange` sees it (after it was written). */
export interface PayoutStateChange {
  /** The payout as written. */
  readonly payout: PayoutRecord;
  /** The state before, or null for a new payout. */
  readonly from: PayoutState | null;
  /** The state after. */
  readonly to: PayoutState;
}

/** Options of {@link PayoutWorkflow}. */
export interface PayoutWorkflowOptions {
  /** The client the debit, confirm and fail go through (its retries, deadline, journal and logs apply). */
  readonly client: MerchantClient;
  /** Where payouts are kept: `PostgresPayoutStore`, `RedisPayoutStore`, or {@link MemoryPayoutStore} in tests. */
  readonly store: PayoutStore;
  /**
   * The merchant's on-chain payment of one payout. Runs at most once per payout, after the hand-out
   * is written. Resolve with a {@link PaymentReport}; a throw (or a report that is not one) means
   * the outcome is unknown, and the payout goes to a person (after `lookupPayment`, when given).
   * Omitted: the workflow hands nothing out, and payments are reported with `reportPaid` /
   * `reportNotPaid` by the merchant's own payer after {@link PayoutWorkflow.handOut}.
   */
  readonly pay?: (payout: PayoutRecord, context: PayContext) => Promise<PaymentReport>;
  /**
   * Looks a payment up on the merchant's side by the payout's reference, when its outcome is
   * unknown (the worker died mid-payment, the lease ran out, `pay` threw). `paid` and `not_paid`
   * settle the payout as the pay function's reports would; undefined (or a throw) leaves it to a
   * person. Answer `not_paid` only when the payment can no longer happen: fail returns the funds.
   */
  readonly lookupPayment?: (payout: PayoutRecord) => Promise<PaymentReport | undefined>;
  /** The namespace of the payouts' keys (default `'payout'`): see `idempotencyKeyFor`. */
  readonly namespace?: string;
  /** This worker's name in hand-outs (default a random id). */
  readonly workerId?: string;
  /** How long a hand-out may run before the payout goes to a person, in ms (default 10 minutes). */
  readonly leaseMs?: number;
  /**
   * How long before the end of the service's 24-hour idempotency window a debit of unknown outcome
   * stops being resent, in ms (default 1 hour): past it the same key would be a new debit.
   */
  readonly windowMarginMs?: number;
  /** How long a confirm refused with `merchant_custody_shortfall` waits before its next attempt, in ms (default 5 minutes). */
  readonly custodyRetryMs?: number;
  /** How many payouts {@link PayoutWorkflow.runOnce} moves on at once (default 4). */
  readonly concurrency?: number;
  /** Called after each state change is written; a throw is logged, never undoes the change. */
  readonly onStateChange?: (change: PayoutStateChange) => void | Promise<void>;
  /** Where the workflow's lines go (default: the console's `warn` and `error`). */
  readonly logger?: Logger;
  /** The `@opentelemetry/api` module for the workflow's spans and metrics (default: loaded when registered, as the client does). */
  readonly openTelemetry?: OpenTelemetryApi | false;
}

/** Options with defaults applied. */
export interface ResolvedPayoutOptions {
  readonly namespace: string;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly windowMarginMs: number;
  readonly custodyRetryMs: number;
  readonly concurrency: number;
}

/** The service's idempotency window (spec: Limits). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

const KNOWN: readonly string[] = [
  'client',
  'store',
  'pay',
  'lookupPayment',
  'namespace',
  'workerId',
  'leaseMs',
  'windowMarginMs',
  'custodyRetryMs',
  'concurrency',
  'onStateChange',
  'logger',
  'openTelemetry',
];

function positive(name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > max)
    throw new InvalidArgumentError(name, `must be a positive integer of at most ${max}.`);
  return value;
}

function nonEmpty(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidArgumentError(name, 'must be a non-empty string.');
  return value;
}

/** Checks the options (an unknown key is refused by name) and applies the defaults. */
export function resolvePayoutOptions(options: PayoutWorkflowOptions): ResolvedPayoutOptions {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'must be an object.');
  refuseUnknownOptions(options, KNOWN, 'new PayoutWorkflow()');
  if (options.client === null || typeof options.client !== 'object') throw new InvalidArgumentError('client', 'must be a MerchantClient.');
  const store = options.store as Partial<PayoutStore> | undefined;
  for (const method of ['create', 'get', 'replace', 'list', 'now'] as const)
    if (typeof store?.[method] !== 'function') throw new InvalidArgumentError('store', `must be a PayoutStore (no ${method}()).`);
  for (const fn of ['pay', 'lookupPayment', 'onStateChange'] as const)
    if (options[fn] !== undefined && typeof options[fn] !== 'function') throw new InvalidArgumentError(fn, 'must be a function.');
  return {
    namespace: nonEmpty('namespace', options.namespace, 'payout'),
    workerId: nonEmpty('workerId', options.workerId, `worker-${crypto.randomUUID().slice(0, 8)}`),
    leaseMs: positive('leaseMs', options.leaseMs, 10 * 60_000),
    windowMarginMs: positive('windowMarginMs', options.windowMarginMs, 60 * 60_000, IDEMPOTENCY_WINDOW_MS - 60_000),
    custodyRetryMs: positive('custodyRetryMs', options.custodyRetryMs, 5 * 60_000),
    concurrency: positive('concurrency', options.concurrency, 4, 64),
  };
}
