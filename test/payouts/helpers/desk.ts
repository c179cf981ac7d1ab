/** A payout desk over the in-process sandbox: a sandbox, a client, a memory store, a pay function that counts. */
import { idempotencyKeyFor } from '../../../src/index.js';
import { MemoryPayoutStore } from '../../../src/payouts/memory-store.js';
import type { PayContext, PaymentReport, PayoutWorkflowOptions } from '../../../src/payouts/options.js';
import type { PayoutRecord } from '../../../src/payouts/record.js';
import { PayoutWorkflow } from '../../../src/payouts/workflow.js';
import { createSandbox, type Sandbox } from '../../../src/testing/index.js';

/** What a desk gives a test. */
export interface Desk {
  readonly sandbox: Sandbox;
  readonly store: MemoryPayoutStore;
  readonly workflow: PayoutWorkflow;
  /** Payments the pay function made, by reference (the chain, as the test sees it). */
  readonly payments: Map<string, number>;
  /** State changes `onStateChange` saw, as `reference: from -> to`. */
  readonly changes: string[];
  /** The store's clock (ms); step it to expire leases. */
  storeClock: number;
  /** The member every payout is for. */
  readonly member: string;
  /** A new workflow over the same store and sandbox (another worker, or the process after a crash). */
  another(overrides?: Partial<PayoutWorkflowOptions>): PayoutWorkflow;
}

/** What the default pay function answers (per reference, else `paid`). */
export type PayScript = (payout: PayoutRecord, context: PayContext) => Promise<PaymentReport>;

/** A sandbox with one member holding 1000 USDT, and a workflow over a memory store. */
export function makeDesk(options: { pay?: PayScript | null; overrides?: Partial<PayoutWorkflowOptions>; maxRetries?: number } = {}): Desk {
  const sandbox = createSandbox();
  const member = sandbox.state.seedMember({ external_member_id: 'ext-payee', balances: { USDT: { available: '1000' } } }).id;
  const payments = new Map<string, number>();
  const changes: string[] = [];
  const client = sandbox.client({ maxRetries: options.maxRetries ?? 0, logLevel: 'off' });
  const desk: Desk = {
    sandbox,
    store: undefined as unknown as MemoryPayoutStore,
    workflow: undefined as unknown as PayoutWorkflow,
    payments,
    changes,
    storeClock: 1_000,
    member,
    another: (overrides = {}) => new PayoutWorkflow({ ...base, ...overrides }),
  };
  const store = new MemoryPayoutStore({ now: () => desk.storeClock });
  const defaultPay: PayScript = (payout) => {
    payments.set(payout.reference, (payments.get(payout.reference) ?? 0) + 1);
    return Promise.resolve({ outcome: 'paid', chainRef: `0xchain-${payout.reference}` });
  };
  const base: PayoutWorkflowOptions = {
    client,
    store,
    logger: {},
    openTelemetry: false,
    ...(options.pay === null ? {} : { pay: options.pay ?? defaultPay }),
    onStateChange: ({ payout, from, to }) => {
      changes.push(`${payout.reference}: ${from ?? 'new'} -> ${to}`);
    },
    ...options.overrides,
  };
  Object.assign(desk, { store, workflow: new PayoutWorkflow(base) });
  return desk;
}

/** The default request of a test payout. */
export function request(desk: Desk, reference: string, amount = '10') {
  return { reference, member: desk.member, asset: 'usdt', amount, toAddress: 'T-destination-1' };
}

/** Effects of one kind with their keys. */
export function effects(sandbox: Sandbox, kind: string): { id: string; key: string | null }[] {
  return sandbox.state.effects.filter((e) => e.kind === kind).map((e) => ({ id: e.id, key: e.idempotencyKey }));
}

/** The key of a payout's confirm or fail attempt, computed as any language would. */
export function settleKey(reference: string, step: 'confirm' | 'fail', attempt: number): string {
  return idempotencyKeyFor(`payout:${step}`, `${attempt}:${reference}`);
}
