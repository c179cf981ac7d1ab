/** What every seeder of `sandbox.state` works on: the store, the sandbox clock, the emitter. */
import { memberByRef } from '../store-ops.js';
import type { MemberRecord, Store } from '../store.js';
import type { EmitRequest } from '../webhook-types.js';

/** The store a seeder writes to, with the sandbox clock and the webhook emitter. */
export interface SeedContext {
  readonly store: Store;
  /** Sandbox time in Unix ms. */
  readonly now: () => number;
  /** Emits a webhook event (delivered only when a receiver is registered). */
  readonly emit: (e: EmitRequest) => void;
}

/** The member a seeding call names (id or external id, any status); a test's typo throws. */
export function mustMember(store: Store, ref: string): MemberRecord {
  const m = memberByRef(store, ref);
  if (!m) throw new Error(`sandbox: no member ${ref}`);
  return m;
}
