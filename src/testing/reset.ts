/**
 * `sandbox.reset()`: back to the state of a new sandbox with the same options (initial
 * credentials; merchant id and webhook secret kept), in place, so that every object a test or the admin API
 * holds (`sandbox.state`, `faults`, `clock`, `requests`, `webhooks`, `stats`) stays valid.
 */
import type { InternalClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import type { QuotaName } from './rate-limit.js';
import type { ServiceDeps } from './service-deps.js';
import { NonceStore } from './signature.js';
import type { Store } from './store.js';

/** What a reset rebuilds or empties. */
export interface ResetParts {
  readonly deps: ServiceDeps;
  /** A fresh store, as `createSandbox` builds it. */
  readonly freshStore: () => Store;
  readonly quotas: Readonly<Record<QuotaName, number>>;
  readonly faults: FaultRegistry;
  readonly clock: InternalClock;
  /** Time source of the clock (the option `now`, or `Date.now`). */
  readonly source: () => number;
}

/** Empties every table, window and log; the caller then restores scopes and re-applies its seed. */
export function resetSandbox(p: ResetParts): void {
  const { deps } = p;
  // Requests a `hang` holds are let go before the fault is forgotten, so none stays open.
  for (const f of p.faults.list()) void f.release();
  p.faults.clear();
  const stats = deps.store.stats;
  Object.assign(deps.store, p.freshStore(), { stats });
  stats.tokenExchanges = 0;
  stats.tokenExchangeAttempts = 0;
  stats.upstreamQrQuotes = 0;
  stats.directorySearches = 0;
  deps.idempotency = new IdempotencyStore();
  deps.nonces = new NonceStore();
  deps.limiter.reset();
  for (const [name, value] of Object.entries(p.quotas)) deps.limiter.setQuota(name as QuotaName, value);
  deps.keys.restore();
  deps.keys.enabled = true;
  deps.webhooks.clear();
  deps.requests.length = 0;
  p.clock.unfreeze();
  p.clock.set(p.source());
  p.clock.skewSignatures(0);
}
