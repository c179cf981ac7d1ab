/**
 * `sandbox.state`: seed and inspect the simulated service. Amounts go in as decimal strings (or
 * numbers, for convenience in tests) and come out as strings at the asset's ledger scale.
 * Member references accept the `mem_` id or the external id.
 *
 * One seeder per domain lives in `seed/`; this facade adds the live views and joins them.
 */
import { addressSeeds } from './seed/addresses.js';
import { cardSeeds } from './seed/cards.js';
import { catalogueSeeds } from './seed/catalogue.js';
import type { SeedContext } from './seed/context.js';
import { memberSeeds, memberSnap } from './seed/members.js';
import { merchantSeeds, merchantSnap } from './seed/merchant.js';
import { productSeeds } from './seed/products.js';
import { remittanceSeeds } from './seed/remittances.js';
import { qrSeeds } from './seed/qrpay.js';
import { reportSeeds, reportsNewestFirst } from './seed/reports.js';
import type { SandboxState } from './state-types.js';
import type { Store } from './store.js';
import { sweep } from './sweep.js';
import { withdrawalView } from './views.js';
import type { EmitRequest } from './webhook-types.js';

/** Builds the facade over a store. */
export function createState(store: Store, now: () => number, emit: (e: EmitRequest) => void): SandboxState {
  const seed: SeedContext = { store, now, emit };
  // The views are getters, read at each access; the seeders hold methods only, so spreading them
  // copies no stale value.
  return {
    get merchant() {
      return merchantSnap(seed);
    },
    get members() {
      return [...store.members.values()].map(memberSnap);
    },
    get withdrawals() {
      return [...store.withdrawals.values()].map((w) => withdrawalView(store.assets, w));
    },
    get reports() {
      return reportsNewestFirst(seed);
    },
    effects: store.effects,
    countEffects(kind) {
      return kind === undefined ? store.effects.length : store.effects.filter((e) => e.kind === kind).length;
    },
    ...memberSeeds(seed),
    ...merchantSeeds(seed),
    ...catalogueSeeds(seed),
    ...productSeeds(seed),
    ...cardSeeds(seed),
    ...remittanceSeeds(seed),
    ...reportSeeds(seed),
    ...addressSeeds(seed),
    ...qrSeeds(seed),
    sweep() {
      sweep(store, now(), emit);
    },
  };
}
