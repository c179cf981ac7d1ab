/**
 * One crash of the process tests: a child worker runs the batch against a sandbox this process
 * serves over HTTP and a real store, and dies with SIGKILL at a kill point (its own, or the test's
 * while the sandbox holds one of its requests); a second child resumes the batch. Then
 * helpers/invariants.ts asserts over the store, the chain files and the sandbox.
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { PayoutRecord } from '../../../src/payouts/record.js';
import { createSandbox } from '../../../src/testing/index.js';
import { childProcesses } from '../../journal/helpers/children.js';
import type { KillPoint } from '../fixtures/payout-child.js';
import { fileChain, seedBatch } from './batch.js';
import { expectPayoutsSound, unknownPayments } from './invariants.js';
import { openStore, prepareStore, type StoreAddress, type StoreKind } from './real-stores.js';
import { allRecords, type Side } from './watched-store.js';
import { LEASE_MS } from './workers.js';

/** The payout worker's children. */
export const payoutChildren = childProcesses(join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'payout-child.ts'));

/** A kill point of the process tests: the child's own, or the test's while the sandbox holds a request. */
export type ProcessPoint = KillPoint | { readonly kind: 'hang'; readonly call: 'debit' | 'confirm' | 'fail' };

/** The path a `hang` holds (confirm and fail name the order in the path), and the effect its request has once released. */
const HELD: Record<'debit' | 'confirm' | 'fail', { readonly path: string; readonly effect: string }> = {
  debit: { path: '/v1/withdrawals', effect: 'withdrawal.create' },
  confirm: { path: '/v1/withdrawals/:id/confirm', effect: 'withdrawal.confirm' },
  fail: { path: '/v1/withdrawals/:id/fail', effect: 'withdrawal.fail' },
};

/** One crash and resume, as the test's table shows it. */
export interface CrashRow {
  readonly died: string;
  readonly states: Record<string, string>;
  readonly ms: number;
}

/** What the resumed child says when it is done. */
interface Done {
  readonly landed: PayoutRecord[];
}

/** Where a store lives and how many stores (prefixes, tables) this file made. */
export interface ProcessWorld {
  readonly kind: StoreKind;
  readonly url: string;
  /** A new, empty store address. */
  fresh(): StoreAddress;
}

/** The writes of each payout in a run that was not killed, in order (`reference` -> states). */
export type WriteSequence = ReadonlyMap<string, readonly string[]>;

const read = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];

/** Runs the batch in a child that is not killed; the writes of each payout. */
export async function dryRun(world: ProcessWorld): Promise<WriteSequence> {
  const run = await crashAndResume(world, undefined);
  const byRef = new Map<string, string[]>();
  for (const r of run.resumed.landed) byRef.set(r.reference, [...(byRef.get(r.reference) ?? []), r.state]);
  return byRef;
}

/** Options of one crash. */
export interface CrashOptions {
  /** Whether the resumed worker has a `lookupPayment` reading the chain. */
  readonly lookup?: boolean;
}

/**
 * The dying worker's hand-out lease: 1 ms, so that a payout it leaves handed out (the one it dies
 * paying, or another one its pass was paying at once) is past its lease on the store's real clock
 * once the resumed worker, a new process started after the death, reads it. It never cuts a
 * payment short in the dying worker: the batch's pay function answers within microtasks, which
 * all run before the lease's timer can fire.
 */
const DYING_LEASE_MS = 1;

/** Kills a child at `point` (or runs it to the end when undefined), resumes in another, checks; the table row. */
export async function crashAndResume(
  world: ProcessWorld,
  point: ProcessPoint | undefined,
  options: CrashOptions = {},
): Promise<{ row: CrashRow; resumed: Done }> {
  const started = performance.now();
  const sandbox = createSandbox();
  const server = await sandbox.listen();
  const dir = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-payouts-'));
  const chainFile = join(dir, 'chain');
  const address = world.fresh();
  let closeStore = (): Promise<void> => Promise.resolve();
  try {
    await prepareStore(address);
    const { payouts, funding } = seedBatch(sandbox, 'p');
    const env = (extra: Record<string, string>): Record<string, string> => ({
      BASE_URL: server.url,
      CLIENT_ID: sandbox.credentials.clientId,
      API_KEY: sandbox.credentials.apiKey,
      SIGNING_KEY: sandbox.credentials.signingKey,
      STORE: address.kind,
      STORE_URL: address.url,
      STORE_NAME: address.name,
      BATCH: JSON.stringify(payouts),
      CHAIN_FILE: chainFile,
      LEASE_MS: String(LEASE_MS),
      ...extra,
    });
    let died = 'not killed';
    if (point !== undefined) died = await killed(point, sandbox, (extra) => env({ LEASE_MS: String(DYING_LEASE_MS), ...extra }));
    const { store, close } = openStore(address);
    closeStore = close;
    const before = await allRecords(store);
    const resumedChild = await payoutChildren.start(env({ WORKER_ID: 'w-resumed', LOOKUP: options.lookup === true ? '1' : '' }));
    const resumed = (await resumedChild.next('done')) as unknown as Done;
    await resumedChild.exited;
    const calls = new Map<string, number>();
    for (const ref of read(`${chainFile}.calls`)) calls.set(ref, (calls.get(ref) ?? 0) + 1);
    const states = expectPayoutsSound(
      {
        payouts,
        funding,
        records: await allRecords(store),
        // The dead worker's writes are what the store held when it died (each payout's last), then the resume's.
        landed: [...before, ...resumed.landed],
        payments: fileChain(chainFile).payments(),
        payCalls: calls,
        effects: sandbox.state.effects,
        balance: (m, a) => sandbox.state.balance(m, a),
        unknownWaits: options.lookup !== true,
      },
      unknownPayments(before),
    );
    return { row: { died, states, ms: Math.round(performance.now() - started) }, resumed };
  } finally {
    await closeStore();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the first child and kills it at `point`; where it died. */
async function killed(
  point: ProcessPoint,
  sandbox: ReturnType<typeof createSandbox>,
  env: (extra: Record<string, string>) => Record<string, string>,
): Promise<string> {
  if (point.kind === 'hang') {
    const { path, effect } = HELD[point.call];
    const held = sandbox.faults.inject({ method: 'POST', path }, { kind: 'hang' });
    const child = await payoutChildren.start(env({ WORKER_ID: 'w-killed' }));
    await held.waitForHits(1);
    const before = sandbox.state.countEffects(effect);
    await child.kill();
    expect(child.process.signalCode).toBe('SIGKILL');
    // The service goes on with the request its client died waiting for, as a real one may.
    await held.release();
    expect(sandbox.state.countEffects(effect), `the held ${point.call} executed after the kill`).toBe(before + 1);
    return `killed by the test while the sandbox held its ${point.call} (executed after the kill)`;
  }
  const child = await payoutChildren.start(env({ WORKER_ID: 'w-killed', KILL_AT: JSON.stringify(point) }));
  await child.exited;
  expect(child.messages('done'), 'the child reached its kill point').toEqual([]);
  expect(child.process.signalCode).toBe('SIGKILL');
  const chainFile = env({})['CHAIN_FILE']!;
  const at = read(`${chainFile}.killed`);
  expect(at).toHaveLength(1);
  return at[0]!;
}

/** Every write of `reference` in the dry run, both sides, as kill points. */
export function everyWriteOf(reference: string, writes: WriteSequence): KillPoint[] {
  const count = writes.get(reference)?.length ?? 0;
  expect(count, `writes of ${reference}`).toBeGreaterThanOrEqual(2);
  const sides: Side[] = ['before', 'after'];
  return Array.from({ length: count }, (_, i) => sides.map((side): KillPoint => ({ kind: 'write', reference, index: i + 1, side }))).flat();
}
