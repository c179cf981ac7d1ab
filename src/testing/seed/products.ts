/** Seeding card products, and with them the KYC rules tied to a product. */
import { Decimal } from '../money.js';
import { seedDec } from '../store-ops.js';
import type { ProductRecord } from '../store.js';
import type { SandboxState } from '../state-types.js';
import type { SeedContext } from './context.js';

type ProductSeeds = Pick<SandboxState, 'seedCardProduct'>;

/** The card product seeders of `sandbox.state`. */
export function productSeeds({ store }: SeedContext): ProductSeeds {
  return {
    seedCardProduct(input = {}) {
      const raw = input.id ?? `sbx_${store.products.size + 1}`;
      const id = raw.startsWith('cpd_') ? raw : `cpd_${raw}`;
      const max = input.max ?? {};
      const product: ProductRecord = {
        id,
        name: input.name ?? `Sandbox product ${id.slice(4)}`,
        form: input.form ?? 'virtual',
        currency: (input.currency ?? 'USD').toUpperCase(),
        country: (input.country ?? 'SG').toUpperCase(),
        kyc_level: input.kyc_level ?? 1,
        issuance_fee: seedDec(input.issuance_fee, new Decimal(5)),
        min_initial_topup: seedDec(input.min_initial_topup, new Decimal(10)),
        max: {
          single: seedDec(max.single, new Decimal(5000)),
          daily: seedDec(max.daily, new Decimal(10000)),
          monthly: seedDec(max.monthly, new Decimal(50000)),
        },
        enabled: input.enabled ?? true,
      };
      store.products.set(id, product);
      return id;
    },
  };
}
