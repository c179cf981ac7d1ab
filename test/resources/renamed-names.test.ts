/**
 * Public names renamed for what they do keep their former names as deprecated aliases: code
 * written against the former name compiles and behaves the same.
 */
import { describe, expect, it } from 'vitest';
import type { MerchantClient, Sandbox, SandboxFaucet } from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';

describe('deprecated aliases of renamed public names', () => {
  it('the type Sandbox still names client.sandbox (now SandboxFaucet), and it works', async () => {
    const sandbox = createSandbox();
    const client: MerchantClient = sandbox.client();
    // Both names type the same object (the type check of `npm test` compiles this file).
    const faucet: Sandbox = client.sandbox;
    const same: SandboxFaucet = faucet;
    expect(same).toBe(client.sandbox);
    await faucet.faucet({ asset: 'USDT', amount: '5' });
    expect(sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/sandbox/faucet')).toHaveLength(1);
    await client.close();
  });
});
