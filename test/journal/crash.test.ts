/**
 * Crash-safe money movement with real processes and a real redis-server: a merchant process
 * starts a withdrawal, a merchant conversion or a card top-up through a client with
 * `RedisJournal` and is killed with SIGKILL at each point of the call; a second process runs
 * `client.recover()`. The ledger service (in this test's process) counts executions per key.
 * Every merchant process connects as the least-privilege user of docs/fleet.md (its ACL line,
 * read from the page), under a prefix that line grants.
 *
 * Kill points, each reached by an event, never by a delay:
 * - before sending: the child's journal says the intent is recorded, and stops there;
 * - after the service executed, before the answer: the ledger executed and stored the request,
 *   and holds its answer;
 * - after the answer, before settling: the child's journal is asked to settle, and stops there.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/index.js';
import { RedisJournal } from '../../src/redis/index.js';
import { failure } from '../helpers/client.js';
import { API_KEY, CLIENT_ID, SIGNING_KEY, WITHDRAWAL } from '../helpers/wire-server.js';
import { ACL_USER, documentedAcl } from '../fleet/helpers/acl.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { cleanupChildren, startChild, type Child, type ChildMessage } from './helpers/children.js';
import { ACTIVATION_PIN, startLedger, type Ledger, type RouteName } from './helpers/ledger.js';

/** The password of the documented ACL user the merchant processes connect as. */
const PASSWORD = 'crash-acl-password-3b8e';
/** Each test's prefix: under the documented key pattern `~merchant-stablecoin:*`. */
const prefixOf = (n: number): string => `merchant-stablecoin:crash${n}`;

/** The processes of a test run several hundred ms each on a loaded 2-core machine: hang guard only. */
const LIMIT = 240_000;

const OPERATIONS = ['withdrawal', 'conversion', 'topup'] as const satisfies readonly RouteName[];
const POINTS = ['before sending', 'after the service executed, before the answer', 'after the answer, before settling'] as const;
type Point = (typeof POINTS)[number];

/** What a recovering child reports per intent. */
interface Reported {
  readonly key: string;
  readonly endpoint: string;
  readonly outcome: string;
  readonly settled: boolean;
  readonly replayed: boolean | undefined;
  readonly result: Record<string, unknown> | undefined;
  readonly check: string | undefined;
}

describe.skipIf(REDIS_SERVER === undefined)('crash-safe money movement (real processes, real redis-server)', () => {
  let redisServer: RedisServer;
  let admin: Redis;
  let ledger: Ledger;
  let n = 0;
  const matrix: string[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    admin = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
    expect(await admin.call('ACL', 'SETUSER', ACL_USER, ...documentedAcl(PASSWORD))).toBe('OK');
    ledger = await startLedger();
  }, LIMIT);
  afterAll(async () => {
    if (matrix.length > 0)
      console.info(
        `crash matrix (operation | kill point | effects at the kill -> after recovery | recovery | open intents after):\n${matrix.join('\n')}`,
      );
    await admin?.quit();
    await ledger?.close();
    await redisServer?.stop();
    await cleanupChildren();
  });

  const env = (prefix: string, extra: Record<string, string>): Record<string, string> => ({
    BASE_URL: ledger.url,
    REDIS_URL: fleetUserUrl(),
    PREFIX: prefix,
    ...extra,
  });

  /** The server's URL with the documented user's credentials. */
  const fleetUserUrl = (): string => {
    const url = new URL(redisServer.url);
    url.username = ACL_USER;
    url.password = PASSWORD;
    return url.toString();
  };

  /** Every key the journal holds under `prefix`, open or claimed. */
  async function journalKeys(prefix: string): Promise<{ intents: string[]; open: string[]; claims: string[] }> {
    const [base] = (await admin.keys(`${prefix}:journal:*:intents`)).map((k) => k.slice(0, -':intents'.length));
    if (base === undefined) return { intents: [], open: [], claims: [] };
    return {
      intents: await admin.hkeys(`${base}:intents`),
      open: await admin.zrange(`${base}:open`, '0', '-1'),
      claims: await admin.hkeys(`${base}:claims`),
    };
  }

  /** Starts the call in a child and kills it at `point`; resolves with the call's key. */
  async function crash(prefix: string, operation: RouteName, point: Point): Promise<string> {
    let child: Child;
    let key: string;
    if (point === 'after the service executed, before the answer') {
      const executed = ledger.holdAnswer(operation);
      child = await startChild(env(prefix, { ROLE: 'call', OPERATION: operation }));
      key = await executed;
    } else {
      child = await startChild(
        env(prefix, { ROLE: 'call', OPERATION: operation, PAUSE_AT: point === 'before sending' ? 'record' : 'settle' }),
      );
      key = String((await child.next('paused'))['key']);
    }
    await child.kill();
    expect(child.process.signalCode).toBe('SIGKILL');
    return key;
  }

  async function recover(prefix: string): Promise<Reported[]> {
    const child = await startChild(env(prefix, { ROLE: 'recover' }));
    const report = await child.next('report');
    await child.exited;
    return report['intents'] as Reported[];
  }

  for (const operation of OPERATIONS) {
    for (const point of POINTS) {
      it(
        `${operation}, killed ${point}: one effect, the recovery gives the order, no open intent left`,
        async () => {
          const prefix = prefixOf(++n);
          const key = await crash(prefix, operation, point);
          const executedBefore = ledger.effects(key);
          expect(executedBefore).toBe(point === 'before sending' ? 0 : 1);
          expect((await journalKeys(prefix)).intents).toEqual([key]);

          const report = await recover(prefix);

          expect(report).toHaveLength(1);
          const [entry] = report;
          expect(entry).toMatchObject({ key, outcome: 'resent', settled: true, replayed: executedBefore === 1 });
          // The order the recovery reports is the one the service executed: once, for this key.
          expect(ledger.effects(key)).toBe(1);
          expect(ledger.executedKeys().filter((k) => k === key)).toHaveLength(1);
          expect(entry!.result).toEqual(ledger.answer(key)!.body as Record<string, unknown>);
          const left = await journalKeys(prefix);
          expect(left).toEqual({ intents: [], open: [], claims: [] });
          matrix.push(
            `${operation} | ${point} | ${executedBefore} -> ${ledger.effects(key)} | ${entry!.outcome}${entry!.replayed ? ' (replayed)' : ' (executed by the resend)'} ${String(entry!.result?.['id'])} | ${left.intents.length}`,
          );
        },
        LIMIT,
      );
    }
  }

  for (const point of ['before sending', 'after the service executed, before the answer'] as const) {
    it(
      `card activation, killed ${point}: reported for a check of the card, never resent, no PIN in Redis`,
      async () => {
        const prefix = prefixOf(++n);
        const key = await crash(prefix, 'activation', point);
        const executedBefore = ledger.effects(key);
        expect(executedBefore).toBe(point === 'before sending' ? 0 : 1);
        const records = await admin.hvals((await admin.keys(`${prefix}:journal:*:intents`))[0]!);
        expect(records).toHaveLength(1);
        expect(records[0]).toContain('"withheld":true');
        // The key and the time are random digits that may hold the PIN's by chance: the rest may not.
        const { key: _key, createdAt: _at, ...rest } = JSON.parse(records[0]!) as Record<string, unknown>;
        expect(JSON.stringify(rest)).not.toContain(ACTIVATION_PIN);

        const report = await recover(prefix);

        expect(report).toEqual([expect.objectContaining({ key, outcome: 'withheld', settled: true })]);
        expect(report[0]!.check).toMatch(/^read the card \(GET \/v1\/cards\/crd_1\): `active` means it succeeded/);
        // Sent once at most, by the process that died: never by the recovery.
        expect(ledger.received(key)).toHaveLength(executedBefore);
        expect(await journalKeys(prefix)).toEqual({ intents: [], open: [], claims: [] });
        matrix.push(`activation | ${point} | ${executedBefore} -> ${ledger.effects(key)} | withheld (card check, not resent) | 0`);
      },
      LIMIT,
    );
  }

  it(
    'two processes recovering together resend each intent once',
    async () => {
      const prefix = prefixOf(++n);
      // Six withdrawals whose connections were reset before the service executed them.
      const fleetUser = new Redis(fleetUserUrl(), { maxRetriesPerRequest: 1 });
      const journal = new RedisJournal({ redis: fleetUser, prefix, commandTimeoutMs: 120_000 });
      const client = new MerchantClient({
        baseUrl: ledger.url,
        clientId: CLIENT_ID,
        apiKey: API_KEY,
        signingKey: SIGNING_KEY,
        journal,
        maxRetries: 0,
      });
      ledger.interpose('withdrawal', () => ({ reset: true }));
      const keys: string[] = [];
      for (let i = 0; i < 6; i++)
        keys.push(
          String(((await failure(client.member('ext-crash').withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string }).idempotencyKey),
        );
      await client.close();
      await fleetUser.quit();
      // The first two resends are held until both are in flight: the two processes are then
      // provably recovering at the same time, each with an intent of its own.
      let release!: () => void;
      const bothInFlight = new Promise<void>((resolve) => (release = resolve));
      let inFlight = 0;
      ledger.interpose('withdrawal', async () => {
        if (++inFlight === 2) release();
        if (inFlight <= 2) await bothInFlight;
        return undefined;
      });

      const children = [
        await startChild(env(prefix, { ROLE: 'recover', WAIT_GO: '1' })),
        await startChild(env(prefix, { ROLE: 'recover', WAIT_GO: '1' })),
      ];
      await Promise.all(children.map((c) => c.next('ready')));
      for (const c of children) c.send({ type: 'go' });
      const reports: ChildMessage[] = await Promise.all(children.map((c) => c.next('report')));
      await Promise.all(children.map((c) => c.exited));
      ledger.interpose('withdrawal', undefined);

      const resent = reports.flatMap((r) => (r['intents'] as Reported[]).map((i) => i.key));
      expect([...resent].sort()).toEqual([...keys].sort());
      for (const report of reports) expect((report['intents'] as Reported[]).length).toBeGreaterThan(0);
      for (const report of reports)
        for (const i of report['intents'] as Reported[]) expect(i).toMatchObject({ outcome: 'resent', settled: true, replayed: false });
      for (const key of keys) {
        // The first attempt (reset) and exactly one resend, by one of the two processes.
        expect(ledger.received(key)).toHaveLength(2);
        expect(ledger.effects(key)).toBe(1);
      }
      expect(await journalKeys(prefix)).toEqual({ intents: [], open: [], claims: [] });
    },
    LIMIT,
  );

  it(
    'after a restart the same order recomputes the same key (idempotencyKeyFor) and gets the replay',
    async () => {
      const prefix = prefixOf(++n);
      const run = async (reference: string): Promise<ChildMessage> => {
        const child = await startChild(env(prefix, { ROLE: 'keyfor', NAMESPACE: 'payout', REFERENCE: reference }));
        const done = await child.next('done');
        await child.exited;
        return done;
      };
      const first = await run('ord_42');
      const again = await run('ord_42');
      const other = await run('ord_43');
      expect(again['key']).toBe(first['key']);
      expect([first['replayed'], again['replayed']]).toEqual([false, true]);
      expect(again['id']).toBe(first['id']);
      expect(ledger.effects(String(first['key']))).toBe(1);
      expect(other['key']).not.toBe(first['key']);
      expect(other['replayed']).toBe(false);
      expect(ledger.effects(String(other['key']))).toBe(1);
    },
    LIMIT,
  );
});
