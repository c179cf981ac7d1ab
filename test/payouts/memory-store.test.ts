import { MemoryPayoutStore } from '../../src/payouts/memory-store.js';
import { describePayoutStoreContract } from './helpers/store-contract.js';

describePayoutStoreContract('MemoryPayoutStore', () => Promise.resolve({ store: new MemoryPayoutStore() }));
