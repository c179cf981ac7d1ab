/** Seeding address books: withdrawal addresses and shipping addresses. */
import { uuid } from '../ids.js';
import type { SandboxState } from '../state-types.js';
import { mustMember, type SeedContext } from './context.js';

type AddressSeeds = Pick<SandboxState, 'seedWithdrawAddress' | 'seedAddress'>;

/** The address seeders of `sandbox.state`. */
export function addressSeeds({ store, now }: SeedContext): AddressSeeds {
  return {
    seedWithdrawAddress(input) {
      const id = `wad_${uuid()}`;
      store.withdrawAddresses.set(id, {
        id,
        memberId: input.member === undefined ? undefined : mustMember(store, input.member).id,
        asset: store.assets.get(input.asset).code,
        network: input.network ?? 'TRON',
        address: input.address,
        label: input.label ?? '',
        usable: input.usable ?? true,
        created_at: now(),
      });
      return id;
    },
    seedAddress(ref, fields, isDefault = false) {
      const m = mustMember(store, ref);
      const id = `addr_${uuid()}`;
      store.addresses.set(id, { id, memberId: m.id, fields: { ...fields }, is_default: isDefault, created_at: now() });
      return id;
    },
  };
}
