/**
 * What every step of the workflow shares: the client, the store, the settings, and the one place
 * a payout is written (so that each write is a compare-and-set one version up, logged, counted and
 * told to the merchant's `onStateChange`).
 */
import type { MerchantClient } from '../client.js';
import type { PayoutWorkflowOptions, ResolvedPayoutOptions, PaymentReport, PayContext } from './options.js';
import type { PayoutAttentionReason, PayoutRecord } from './record.js';
import type { PayoutStore } from './store.js';
import type { PayoutTelemetry } from './telemetry.js';

/** A write's changes: any field but the identity and the version. */
export type PayoutChanges = Partial<Omit<PayoutRecord, 'reference' | 'version' | 'createdAt' | 'debitKey'>>;

/** The shared parts of one workflow. */
export class PayoutContext {
  readonly client: MerchantClient;
  readonly store: PayoutStore;
  readonly settings: ResolvedPayoutOptions;
  readonly telemetry: PayoutTelemetry;
  readonly pay: ((payout: PayoutRecord, context: PayContext) => Promise<PaymentReport>) | undefined;
  readonly lookupPayment: ((payout: PayoutRecord) => Promise<PaymentReport | undefined>) | undefined;
  readonly #onStateChange: PayoutWorkflowOptions['onStateChange'];

  constructor(options: PayoutWorkflowOptions, settings: ResolvedPayoutOptions, telemetry: PayoutTelemetry) {
    this.client = options.client;
    this.store = options.store;
    this.settings = settings;
    this.telemetry = telemetry;
    this.pay = options.pay;
    this.lookupPayment = options.lookupPayment;
    this.#onStateChange = options.onStateChange;
  }

  /**
   * The wall clock, for what is compared with the service's 24-hour window and shown to people
   * (`createdAt`, `updatedAt`, `since`). Leases use the store's clock instead.
   */
  wallNow(): number {
    return Date.now();
  }

  /**
   * Writes `prev` with `changes`, one version up. Resolves with the record written, or undefined
   * when another worker wrote first (the caller reads again). A rejection means the store's answer
   * was lost: the write may have landed, and the next read says.
   */
  async commit(prev: PayoutRecord, changes: PayoutChanges): Promise<PayoutRecord | undefined> {
    const next: PayoutRecord = { ...prev, ...changes, version: prev.version + 1, updatedAt: this.wallNow() };
    if (!(await this.store.replace(next))) return undefined;
    if (next.state !== prev.state) await this.announce(next, prev.state);
    return next;
  }

  /** Logs, counts and reports a state change already written. */
  async announce(payout: PayoutRecord, from: PayoutRecord['state'] | null): Promise<void> {
    const level = payout.state === 'needs_attention' ? 'warn' : 'info';
    const why =
      payout.state === 'needs_attention' && payout.attention !== null ? `: ${payout.attention.reason} (${payout.attention.detail})` : '';
    this.telemetry.log(level, `payout ${JSON.stringify(payout.reference)} ${from ?? 'new'} -> ${payout.state}${why}`, {
      reference: payout.reference,
      state: payout.state,
      withdrawalId: payout.withdrawalId ?? undefined,
      code: payout.attention?.code ?? undefined,
    });
    await this.telemetry.transition(from, payout.state);
    try {
      await this.#onStateChange?.({ payout, from, to: payout.state });
    } catch (err) {
      this.telemetry.log('error', `payout ${JSON.stringify(payout.reference)}: onStateChange threw (the change is written and stays)`, {
        reference: payout.reference,
        error: err instanceof Error ? err.name : typeof err,
      });
    }
  }

  /** Sends the payout to a person. */
  attention(prev: PayoutRecord, reason: PayoutAttentionReason, code: string | null, detail: string): Promise<PayoutRecord | undefined> {
    return this.commit(prev, {
      state: 'needs_attention',
      attention: { reason, from: prev.state, detail, code, since: this.wallNow() },
    });
  }
}
