/**
 * Remittances through the SDK over server mode: bank search (the short-query rule and the
 * BIC-shaped name choice), the agreement's language fallback, and cancel's two refusals.
 */
import { describe, expect, it } from 'vitest';
import { servedWorlds } from './served.js';

const serve = servedWorlds();

describe('GET /v1/remit/swift-search', () => {
  it('a query under 6 characters answers banks [] and unavailable false without asking the directory, even while it is down', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setDirectoryAvailable(false);
    for (const q of ['DBS', 'bank', 'DEUTD']) {
      expect(await client.remittances.swiftSearch({ q })).toEqual({ unavailable: false, banks: [] });
    }
    expect(sandbox.stats.directorySearches).toBe(0);
    // A longer query does ask, and learns that the directory is down.
    expect(await client.remittances.swiftSearch({ q: 'Barclays Bank' })).toEqual({ unavailable: true, banks: [] });
    expect(sandbox.stats.directorySearches).toBe(1);
  });

  it('a BIC is looked up as a BIC; a BIC-shaped name with no such BIC is searched as a name (sandbox choice)', async () => {
    const { sandbox, client } = await serve();
    const bic = await client.remittances.swiftSearch({ q: 'DEUTDEFFXXX' });
    expect(bic.banks.map((b) => b.swift_code)).toEqual(['DEUTDEFFXXX']);
    const eight = await client.remittances.swiftSearch({ q: 'BARCGB22' });
    expect(eight.banks.map((b) => b.swift_code)).toEqual(['BARCGB22XXX', 'BARCGB22LON']);
    // "barclays" has the shape of an 8-character BIC, and no bank has that BIC.
    const name = await client.remittances.swiftSearch({ q: 'barclays' });
    expect(name.unavailable).toBe(false);
    expect(name.banks.map((b) => b.bank_name)).toEqual(['Barclays Bank PLC', 'Barclays Bank PLC']);
    expect(sandbox.stats.directorySearches).toBe(3);
  });

  it('a name search is filtered by country', async () => {
    const { client } = await serve();
    expect((await client.remittances.swiftSearch({ q: 'Barclays', country: 'GB' })).banks).toHaveLength(2);
    expect((await client.remittances.swiftSearch({ q: 'Barclays Bank', country: 'DE' })).banks).toEqual([]);
  });
});
