/**
 * One name per endpoint (src/core/journal/endpoint-names.ts, src/core/call/call.ts): a withdrawal
 * and its recovery carry `member.withdrawals.create` in every log line, span and journal row, and
 * a row written under the former short name (`withdrawals.create`) is still recovered: a rolling
 * deploy has both.
 */
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryJournal, type IntentResent, type JournalIntent, type LogFields } from '../../src/index.js';
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import { failure, wireClient } from '../helpers/client.js';
import { WITHDRAWAL } from '../helpers/wire-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';

const NAME = 'member.withdrawals.create';
const spans = new InMemorySpanExporter();
beforeAll(() => {
  otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
});

let ledger: Ledger;
let journal: MemoryJournal;
const logs: Array<{ message: string; fields: LogFields | undefined }> = [];
const line = (message: string, fields?: LogFields) => logs.push({ message, fields });
const logger = { debug: line, info: line, warn: line, error: line };

beforeEach(async () => {
  ledger = await startLedger();
  journal = new MemoryJournal();
  logs.length = 0;
  spans.reset();
});
afterEach(async () => {
  await ledger.close();
});

const client = () => wireClient(ledger.url, { journal, logger, logLevel: 'debug', maxRetries: 0 });

/** A withdrawal lost before the service executed it: its intent stays open. */
async function lost(): Promise<JournalIntent> {
  ledger.interpose('withdrawal', () => ({ reset: true }));
  const err = (await failure(client().member('ext-1').withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string };
  ledger.interpose('withdrawal', undefined);
  return journal.open().find((i) => i.key === err.idempotencyKey)!;
}

describe('one endpoint name', () => {
  it('a withdrawal and its recovery: the same name in every log line, span and journal row', async () => {
    const intent = await lost();
    expect(intent.endpoint).toBe(NAME);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => r.outcome)).toEqual(['resent']);
    expect(ledger.effects(intent.key)).toBe(1);

    // Every line about this withdrawal (the token exchange has lines of its own) names it one way.
    const named = logs.filter((l) => l.fields?.['endpoint'] !== undefined && l.fields['endpoint'] !== 'connect.token');
    expect(named.map((l) => l.message)).toEqual(expect.arrayContaining(['call failed', 'recovery: intent resent']));
    expect([...new Set(named.map((l) => l.fields!['endpoint']))].sort()).toEqual([NAME, `recover ${NAME}`]);

    const calls = spans.getFinishedSpans().filter((s) => s.name !== 'connect.token');
    expect(calls.map((s) => s.name)).toEqual([NAME, `recover ${NAME}`]);
    expect(calls.map((s) => s.attributes['merchant_stablecoin.endpoint'])).toEqual([NAME, `recover ${NAME}`]);
  });

  it('a row written under the former short name is recovered, and reported and logged under the one name', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    await journal.record({ ...intent, endpoint: 'withdrawals.create' });
    logs.length = 0;
    const report = await client().recover({ minAgeMs: 0 });
    const [entry] = report.intents as IntentResent[];
    expect(entry).toMatchObject({ outcome: 'resent', settled: true, intent: { key: intent.key, endpoint: NAME } });
    expect(ledger.effects(intent.key)).toBe(1);
    expect(logs.find((l) => l.message === 'recovery: intent resent')?.fields).toMatchObject({ endpoint: NAME, idempotencyKey: intent.key });
    expect(journal.open()).toEqual([]);
  });

  it('no endpoint id is another one with `member.` in front: a short name read back is never ambiguous', () => {
    const ids = new Set(ENDPOINTS.map((e) => e.id));
    expect([...ids].filter((id) => ids.has(`member.${id}`))).toEqual([]);
  });
});
