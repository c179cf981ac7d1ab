/**
 * The schema's verify on a store's first use (SchemaGate), with a check the test answers: one
 * verify shared by the operations that wait for it, a verdict kept (fits, or differs: logged once,
 * refused unsent under each operation's name), an outage or a missing table never kept, and no
 * operation waiting past its budget. The real-PostgreSQL side is in schema.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStoreError } from '../../src/postgres/failures.js';
import { SchemaGate } from '../../src/postgres/schema-gate.js';

/** A check whose every run the test settles. */
function controlled() {
  const runs: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  const check = () => new Promise<void>((resolve, reject) => runs.push({ resolve, reject }));
  return { check, runs };
}
const differs = () =>
  new PostgresStoreError('misconfigured', 'the table "t" differs from what the store needs: column intent is jsonb, not text', {
    code: undefined,
    operation: 'verify the journal table',
    unsent: true,
  });
const missing = () =>
  new PostgresStoreError('misconfigured', 'the table "t" does not exist (SQLSTATE 42P01)', {
    code: '42P01',
    operation: 'verify the journal table',
    unsent: true,
  });
const lost = () =>
  new PostgresStoreError('unreachable', 'no answer within 50 ms', {
    code: undefined,
    operation: 'verify the journal table',
    unsent: false,
  });
const refusedGrant = () =>
  new PostgresStoreError('misconfigured', 'permission denied (SQLSTATE 42501)', { code: '42501', operation: 'x', unsent: false });
const settled = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => 'resolved',
    (e: unknown) => e,
  );
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SchemaGate', () => {
  it('runs one verify for the operations that arrive together, then none: a table that fits is kept', async () => {
    const { check, runs } = controlled();
    const gate = new SchemaGate(check, () => undefined, 'the intent journal');
    const a = gate.ready('record an intent', 60_000);
    const b = gate.ready('claim intents', 60_000);
    await tick();
    expect(runs).toHaveLength(1);
    runs[0]!.resolve();
    expect(await settled(a)).toBe('resolved');
    expect(await settled(b)).toBe('resolved');
    await gate.ready('settle an intent', 0);
    expect(runs).toHaveLength(1);
  });

  it('a table that differs is kept, logged once, and refused unsent under each operation’s name until a verify finds it fixed', async () => {
    const { check, runs } = controlled();
    const lines: Array<[string, string]> = [];
    const logger = { error: (m: string) => lines.push(['error', m]) };
    const gate = new SchemaGate(check, () => logger, 'the intent journal');
    const first = settled(gate.ready('record an intent', 60_000));
    await tick();
    runs[0]!.reject(differs());
    const err = (await first) as PostgresStoreError;
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: undefined, operation: 'record an intent', executed: false });
    expect(err.message).toMatch(/^Cannot record an intent: the table "t" differs .*jsonb, not text\. A configuration mistake/);
    const second = (await settled(gate.ready('claim intents', 60_000))) as PostgresStoreError;
    expect(second.operation).toBe('claim intents');
    expect(runs).toHaveLength(1); // kept: not checked again
    expect(lines).toEqual([
      ['error', expect.stringMatching(/^merchant-stablecoin\/postgres: the intent journal: Cannot verify the journal table: /)],
    ]);

    // verifySchema() still differs: no second line; then fixed: the gate opens.
    const again = settled(gate.verify());
    runs[1]!.reject(differs());
    expect(await again).toMatchObject({ operation: 'verify the journal table' });
    expect(lines).toHaveLength(1);
    const fixed = settled(gate.verify());
    runs[2]!.resolve();
    expect(await fixed).toBe('resolved');
    await gate.ready('record an intent', 0);
    expect(runs).toHaveLength(3);
    // Broken again later (verifySchema after a bad migration): logged again.
    const broken = settled(gate.verify());
    runs[3]!.reject(differs());
    await broken;
    expect(lines).toHaveLength(2);
  });

  it('an outage, a missing table or a refused grant is not kept: the operation fails unsent, the next verifies again', async () => {
    const { check, runs } = controlled();
    const lines: string[] = [];
    const fields: unknown[] = [];
    const logger = { error: (m: string, f?: unknown) => lines.push(m) && fields.push(f) };
    const gate = new SchemaGate(check, () => logger, 'the webhook event store');
    for (const [i, failure] of [lost(), missing(), missing(), refusedGrant()].entries()) {
      const op = settled(gate.ready('claim an event', 60_000));
      await tick();
      runs[i]!.reject(failure);
      const err = (await op) as PostgresStoreError;
      expect(err).toMatchObject({ kind: failure.kind, code: failure.code, operation: 'claim an event', executed: false });
    }
    expect(runs).toHaveLength(4);
    // The missing table is the gate's to log (once for the same message); the runner logs the server's refusals.
    expect(lines).toEqual([expect.stringMatching(/does not exist/)]);
    expect(fields).toEqual([{ code: '42P01' }]);
    const op = settled(gate.ready('claim an event', 60_000));
    await tick();
    runs[4]!.resolve();
    expect(await op).toBe('resolved');
  });

  it('an operation waits no longer than its budget; the verify goes on and its answer serves the next', async () => {
    const { check, runs } = controlled();
    const gate = new SchemaGate(check, () => undefined, 'the webhook event store');
    const err = (await settled(gate.ready('claim an event', 5.4))) as PostgresStoreError;
    expect(err).toMatchObject({ kind: 'unreachable', operation: 'claim an event', executed: false });
    expect(err.message).toMatch(/no answer to the table's verify within 5 ms/);
    const waiting = settled(gate.ready('claim an event', 60_000));
    await tick();
    expect(runs).toHaveLength(1); // the same verify, still in flight
    runs[0]!.resolve();
    expect(await waiting).toBe('resolved');
    expect(await settled(gate.ready('claim an event', -1))).toBe('resolved');
  });

  it('a verify that throws something other than a store error fails as one', async () => {
    const gate = new SchemaGate(
      () => Promise.reject(new Error('socket hang up')),
      () => undefined,
      'x',
    );
    expect(await settled(gate.ready('record an intent', 60_000))).toMatchObject({ kind: 'unreachable', operation: 'record an intent' });
    await expect(gate.verify()).rejects.toMatchObject({ kind: 'unreachable', operation: 'verify the table' });
  });
});
