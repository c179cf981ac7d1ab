/**
 * Every runnable example must run to completion against the sandbox simulator and exit 0, so
 * that an example can never rot. Each runs in its own child process (`node --import tsx`), the
 * same way `npm run examples` runs them; they run concurrently to keep the suite fast.
 */
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_TIMEOUT_MS, listExamples, runExample } from '../../scripts/run-examples.js';

const examples = listExamples();

describe.concurrent('examples/', () => {
  it('holds one runnable script per namespace besides the quickstart', () => {
    const names = examples.map((f) => basename(f, '.ts'));
    for (const name of [
      'quickstart',
      'merchant-account',
      'members-and-balances',
      'withdrawals',
      'qrpay',
      'kyc',
      'cards',
      'remittances',
      'reports',
      'webhooks',
    ]) {
      expect(names).toContain(name);
    }
  });

  for (const file of examples) {
    it(
      `${basename(file)} runs and exits 0`,
      async () => {
        const r = await runExample(file);
        expect(r.timedOut, `${r.name} timed out`).toBe(false);
        expect(r.code, `${r.name} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(/\S/);
      },
      EXAMPLE_TIMEOUT_MS + 5_000,
    );
  }
});
