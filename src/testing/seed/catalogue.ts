/** Seeding the service's catalogues: assets, the conversion price list, corridors, bank directory. */
import { Decimal } from '../money.js';
import type { ConversionPair } from '../pricing.js';
import { seedDec } from '../store-ops.js';
import type { SandboxState } from '../state-types.js';
import type { SeedContext } from './context.js';

type CatalogueSeeds = Pick<SandboxState, 'setConversionPair' | 'setAsset' | 'setCorridors' | 'setDirectoryAvailable'>;
type PairPatch = Parameters<SandboxState['setConversionPair']>[2];

/** A price-list entry for a direction the list lacks: enabled, 0.1 % on the `to` side. */
function defaultPair(from: string, to: string): ConversionPair {
  return {
    from,
    to,
    enabled: true,
    fee_rate: new Decimal('0.001'),
    fee_side: 'to',
    min_from_amount: undefined,
    max_from_amount: undefined,
    rate: undefined,
  };
}

/** Applies the given fields of a patch to a price-list entry. */
function patchPair(pair: ConversionPair, patch: PairPatch): void {
  if (patch.enabled !== undefined) pair.enabled = patch.enabled;
  if (patch.fee_rate !== undefined) pair.fee_rate = seedDec(patch.fee_rate);
  if (patch.fee_side !== undefined) pair.fee_side = patch.fee_side;
  if (patch.min_from_amount !== undefined) pair.min_from_amount = seedDec(patch.min_from_amount);
  if (patch.max_from_amount !== undefined) pair.max_from_amount = seedDec(patch.max_from_amount);
  if (patch.rate !== undefined) pair.rate = seedDec(patch.rate);
}

/** The catalogue seeders of `sandbox.state`. */
export function catalogueSeeds({ store }: SeedContext): CatalogueSeeds {
  return {
    setConversionPair(from, to, patch) {
      const [f, t] = [from.toUpperCase(), to.toUpperCase()];
      const key = `${f}>${t}`;
      const pair = store.conversionPairs.get(key) ?? defaultPair(f, t);
      patchPair(pair, patch);
      store.conversionPairs.set(key, pair);
    },
    setAsset(asset) {
      store.assets.put(asset);
    },
    setCorridors(corridors) {
      store.corridors = corridors.map((c) => ({ ...c, clearing_systems: [...c.clearing_systems], lines: [...c.lines] }));
    },
    setDirectoryAvailable(available) {
      store.directoryAvailable = available;
    },
  };
}
