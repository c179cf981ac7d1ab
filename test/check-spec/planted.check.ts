/**
 * `npm run check:spec` catches each difference issue 39 found between the document and the spec:
 * each is planted alone in a copy of `openapi.json`, and the facts held against the copy
 * (`OPENAPI_DOCUMENT`, as check:spec reads another version) disagree on it and on nothing else;
 * then all of them planted in one copy make the check itself (vitest on `openapi.check.ts`, as
 * check:spec runs it) fail and name every one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document read as JSON of many shapes, field by field
type Json = Record<string, any>;

const COMMITTED = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'check-spec-planted-'));
const before = process.env['OPENAPI_DOCUMENT'];
let written = 0;

afterAll(() => {
  if (before === undefined) delete process.env['OPENAPI_DOCUMENT'];
  else process.env['OPENAPI_DOCUMENT'] = before;
  rmSync(dir, { recursive: true, force: true });
});

interface Plant {
  readonly name: string;
  /** Plants the difference in a copy of the document. */
  readonly plant: (doc: Json) => void;
  /** Facts (`category | subject | claim`) that must disagree. */
  readonly reported: readonly string[];
  /** Every disagreeing fact must match it: the plant disturbs nothing else. */
  readonly only: RegExp;
}

const schemas = (doc: Json): Json => doc['components']['schemas'] as Json;
const STATIC_LISTS = { BalancesEnvelope: 'GET /v1/balances', RemittancesCorridorsResponse: 'GET /v1/remit/corridors' };
const QUOTES = ['/v1/remit/quotes', '/v1/exchange/quotes'];
const NOT_REQUIRED = 'x-idempotency-key not required (not shown; the quote shown takes none)';

const PLANTS: readonly Plant[] = [
  {
    name: 'a known pending-action kind without its fields accepted',
    plant: (doc) => delete schemas(doc)['UnknownAction'].properties.kind.not,
    reported: [
      'response fields | Remittance pending action | slippage without its listed fields refused',
      'response fields | Remittance pending action | supplement without its listed fields refused',
      'response fields | Remittance pending action | slippage without deadline refused',
      'response fields | Remittance pending action | supplement without items refused',
    ],
    only: /^response fields \| Remittance pending action \| (slippage|supplement) without /,
  },
  {
    name: 'an unknown pending-action kind refused',
    plant: (doc) => (schemas(doc)['UnknownAction'].properties.kind.enum = ['slippage', 'supplement']),
    reported: ['response fields | Remittance pending action | an unknown kind accepted, its fields kept'],
    only: /an unknown kind accepted/,
  },
  {
    name: 'the quotes declaring the idempotency key required',
    plant: (doc) => {
      for (const path of QUOTES) {
        const op = doc['paths'][path].post as Json;
        op['x-idempotency'] = 'required';
        op['parameters'] = (op['parameters'] as Json[]).map((p) =>
          p['$ref'] === '#/components/parameters/XIdempotencyKeyOptional' ? { $ref: '#/components/parameters/XIdempotencyKey' } : p,
        );
      }
    },
    reported: QUOTES.map((p) => `headers | POST ${p} | ${NOT_REQUIRED}`),
    only: /x-idempotency-key not required/,
  },
  {
    name: '`balances` not declared as a required array of balance rows',
    plant: (doc) => {
      const envelope = schemas(doc)['BalancesEnvelope'] as Json;
      envelope['properties']['balances'] = { description: 'Transitional duplicate of `data`.' };
      envelope['required'] = (envelope['required'] as string[]).filter((n) => n !== 'balances');
    },
    reported: [
      'pagination | GET /v1/balances | balances required',
      'pagination | GET /v1/balances | balances an array of the rows of data',
    ],
    only: /^pagination \| GET \/v1\/balances \| balances /,
  },
  {
    name: 'the static lists declaring any cursor and any end marker',
    plant: (doc) => {
      for (const name of Object.keys(STATIC_LISTS)) {
        const props = schemas(doc)[name].properties as Json;
        props['next_cursor'] = { type: ['string', 'null'] };
        props['has_more'] = { type: 'boolean' };
      }
    },
    reported: Object.values(STATIC_LISTS).flatMap((r) => [
      `pagination | ${r} | next_cursor null (a static list)`,
      `pagination | ${r} | has_more false (a static list)`,
      `pagination | ${r} | next_cursor null (a static list: no string)`,
    ]),
    only: /^pagination \| GET \/v1\/(balances|remit\/corridors) \| (next_cursor|has_more) /,
  },
  {
    name: '`card.3ds.received` `expires_at` without its date-time format',
    plant: (doc) => delete schemas(doc)['WebhookCard3dsReceivedData'].properties.expires_at.format,
    reported: ['webhooks | card.3ds.received | data.expires_at a timestamp (date-time)'],
    only: /data\.expires_at a timestamp/,
  },
  {
    name: 'the withdrawal order’s `to_address` without its 200-character bound',
    plant: (doc) => delete schemas(doc)['WithdrawalOrder'].properties.to_address.maxLength,
    reported: ['response fields | Withdrawal order: to_address | up to 200 characters'],
    only: /Withdrawal order: to_address \| up to 200 characters/,
  },
  {
    name: 'the QR quote’s `funding_source` without its default',
    plant: (doc) =>
      delete doc['paths']['/v1/qrpay/quotes'].post.requestBody.content['application/json'].schema.properties.funding_source.default,
    reported: ['request fields | POST /v1/qrpay/quotes | body funding_source default member'],
    only: /funding_source default member/,
  },
  {
    name: 'the agreement without `Accept-Language`',
    plant: (doc) => {
      const op = doc['paths']['/v1/remit/vp/agreement'].get as Json;
      op['parameters'] = (op['parameters'] as Json[]).filter((p) => p['name'] !== 'Accept-Language');
    },
    reported: ['headers | GET /v1/remit/vp/agreement | Accept-Language declared, optional'],
    only: /Accept-Language declared/,
  },
];

/** A copy of the committed document with the given plants, written to a file of its own. */
function plantedCopy(plants: readonly Plant[]): string {
  const doc = JSON.parse(COMMITTED) as Json;
  for (const p of plants) p.plant(doc);
  const file = join(dir, `openapi-${++written}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** The disagreeing facts of a document file, computed afresh (the modules read `OPENAPI_DOCUMENT` when loaded). */
async function disagreeing(file: string): Promise<string[]> {
  process.env['OPENAPI_DOCUMENT'] = file;
  vi.resetModules();
  const { allFacts, line } = await import('./all-facts.js');
  return allFacts()
    .filter((f) => !f.holds)
    .map(line);
}

describe('check:spec catches each planted difference', () => {
  it('an unplanted copy disagrees on nothing', async () => {
    expect(await disagreeing(plantedCopy([]))).toEqual([]);
  });

  it.each(PLANTS.map((p) => [p.name, p] as const))('%s', async (_, p) => {
    const found = await disagreeing(plantedCopy([p]));
    for (const claim of p.reported) expect(found).toContain(claim);
    expect(found.filter((f) => !p.only.test(f))).toEqual([]);
  });

  it('all planted at once: the check fails and names every one', () => {
    const file = plantedCopy(PLANTS.filter((p) => !p.name.startsWith('an unknown')));
    // The check as check:spec runs it, on the planted copy (the parent's vitest variables left out).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
    const vitest = resolve('node_modules/vitest/vitest.mjs');
    const run = spawnSync(
      process.execPath,
      [vitest, 'run', '--config', 'vitest.check-spec.config.ts', 'test/check-spec/openapi.check.ts'],
      { env: { ...env, OPENAPI_DOCUMENT: file }, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    for (const p of PLANTS.filter((x) => !x.name.startsWith('an unknown'))) {
      for (const claim of p.reported) expect(run.stdout).toContain(`disagreeing: ${claim}`);
    }
  }, 120_000);
});
