import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('npm run demo', () => {
  it('runs the quickstart against the embedded simulator and exits 0', async () => {
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('MERCHANT_API_')) delete env[k];
    // A hang guard, not a speed bound: the demo takes seconds, more on a loaded machine.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], { env, timeout: 110_000 });
    expect(stdout).toMatch(/Withdrawal wdr_\S+ is locked/);
    // Every balance line indented alike under its step, the total at the ledger's scale.
    expect(stdout).toContain('4. Balances:\n   USDT: available 250.000000, withdrawing 0.000000, total 250.000000\n');
    expect(stdout).toMatch(/\n {3}USDT: available 224\.500000, withdrawing 25\.500000, total 250\.000000\n/);
    expect(stdout).toMatch(/\n {3}USDT: available 224\.500000, withdrawing 0\.000000, total 224\.500000\n/);
    for (const line of stdout.trim().split('\n')) expect(line).toMatch(/^(\d\. |Sandbox |Using |Done\.$| {3}USDT: )/);
    expect(stdout).toMatch(/Walked 45 reports/);
    expect(stdout).toMatch(/insufficient_balance/);
    expect(stdout.trim().endsWith('Done.')).toBe(true);
  }, 120_000);
});
