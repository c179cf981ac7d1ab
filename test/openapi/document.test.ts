/**
 * The committed OpenAPI document is what the tables generate (like the API reports), and every
 * operation in it agrees with the SDK's endpoint table and with the sandbox's route table: same
 * set, same methods, same member scope, idempotency, scope and signature.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { renderOpenApi } from '../../scripts/openapi.js';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import { ERROR_CODES } from '../../src/facts/error-codes.js';
import { ENDPOINTS, NAME_ONLY_ENDPOINTS } from '../../src/facts/endpoints.js';
import { pendingActionSchema } from '../../src/schemas/remittances.js';
import { ALL_ROUTES } from '../../src/testing/routes/index.js';
import facts from '../fixtures/spec-facts.json' with { type: 'json' };
import { slippage, supplement } from '../schemas/fixtures.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document read as JSON of many shapes, field by field
type Json = Record<string, any>;

const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
const doc = JSON.parse(committed) as Json;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
const operations = Object.entries(doc['paths'] as Json).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({ route: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
);
const opOf = (e: EndpointDescriptor): Json => doc['paths'][e.path][e.method.toLowerCase()] as Json;

/** A `$ref` inside the document, resolved. */
function deref(node: Json): Json {
  const ref = node['$ref'] as string | undefined;
  if (!ref) return node;
  return ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key) => at[key] as Json, doc);
}

const headerParams = (op: Json): Json[] => (op['parameters'] as Json[]).map(deref).filter((p) => p['in'] === 'header');

describe('openapi.json', () => {
  it('is what `npm run openapi` generates from the tables', () => {
    // Fails after a change to an endpoint, a schema, a code or a resource method's parameters:
    // run `npm run openapi` and commit openapi.json with the change.
    const fresh = renderOpenApi();
    expect(fresh === committed, 'openapi.json is out of date: run `npm run openapi` and commit it').toBe(true);
  });

  it('is OpenAPI 3.1 with one operation per endpoint of the table (55), each operationId unique', () => {
    expect(doc['openapi']).toBe('3.1.0');
    expect(operations.map((o) => o.route).sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
    expect(operations).toHaveLength(55);
    expect(new Set(operations.map((o) => o.op['operationId'])).size).toBe(55);
  });

  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as const))('%s: its flags are the descriptor’s', (_, e) => {
    const op = opOf(e);
    const headers = headerParams(op);
    const header = (name: string) => headers.find((p) => p['name'] === name);
    // Member scope: `x-on-behalf-of` required exactly where the table says; optional where it may be left out.
    expect(op['x-member-scope'] === 'none').toBe(!e.memberScoped);
    if (op['x-member-scope'] === 'none') expect(header('x-on-behalf-of')).toBeUndefined();
    else expect(header('x-on-behalf-of')?.['required']).toBe(op['x-member-scope'] === 'required');
    // Idempotency key: required where the SDK sends one, optional where the spec shows no requirement (the quotes).
    const key = !e.sendsKey ? 'none' : e.keyNotRequired === true ? 'optional' : 'required';
    expect(op['x-idempotency']).toBe(key);
    expect(header('x-idempotency-key')?.['required']).toBe(key === 'none' ? undefined : key === 'required');
    expect(op['x-moves-funds']).toBe(e.journaled);
    expect(op['x-scope']).toBe(e.scope ?? null);
    expect(op['x-shape']).toBe(NAME_ONLY_ENDPOINTS.includes(e) ? 'name-only' : 'shown');
    // Security: credentials for the exchange; a token (scope as its role) for the rest; a
    // signature on every write but the exchange.
    const security = op['security'] as Json[];
    if (e.path === '/v1/connect/token') {
      expect(security).toEqual([{ clientId: [], apiKey: [] }]);
      expect(op['x-signed']).toBe(false);
    } else {
      const signed = e.method !== 'GET';
      expect(op['x-signed']).toBe(signed);
      for (const requirement of security) {
        expect(Object.values(requirement)[0]).toEqual(e.scope ? [e.scope] : []);
        expect('signature' in requirement && 'signatureNonce' in requirement && 'signatureTimestamp' in requirement).toBe(signed);
      }
    }
    // The success answer: a named schema where the spec shows one, any JSON value where it does not.
    const success = Object.entries(op['responses'] as Json).filter(([status]) => status.startsWith('2'));
    expect(success.length).toBeGreaterThan(0);
    for (const [, response] of success) {
      const schema = response['content']['application/json']['schema'] as Json;
      if (e.typing === 'full') expect(schema['$ref']).toMatch(/^#\/components\/schemas\//);
      else expect(Object.keys(schema)).toEqual(['description']);
      if (e.sendsKey) expect(response['headers']['X-Idempotent-Replay']).toBeDefined();
    }
  });

  it('lists under its error responses every code the spec documents for an endpoint, at the status the spec gives it there, each in the error envelope with X-Request-Id', () => {
    const documented = facts.endpointErrorCodes as Record<string, string[]>;
    const statuses = facts.endpointErrorStatuses as Record<string, Record<string, number>>;
    for (const e of ENDPOINTS) {
      const listed = new Map<string, string>();
      for (const [status, r] of Object.entries(opOf(e)['responses'] as Json)) {
        if (status.startsWith('2')) continue;
        const response = deref(r as Json);
        for (const code of (response['x-error-codes'] as string[] | undefined) ?? []) listed.set(code, status);
        const schema = response['content']['application/json']['schema'] as Json;
        expect(JSON.stringify(schema)).toContain('#/components/schemas/Error');
        expect(response['headers']['X-Request-Id'], `${e.method} ${e.path} ${status}`).toBeDefined();
        if (e.sendsKey && status === '400') expect(response['headers']['X-Idempotent-Replay']).toBeDefined();
      }
      for (const code of documented[`${e.method} ${e.path}`] ?? []) expect(listed.has(code), `${e.method} ${e.path}: ${code}`).toBe(true);
      for (const [code, status] of listed) {
        const known = ERROR_CODES[code as keyof typeof ERROR_CODES];
        const given = statuses[`${e.method} ${e.path}`]?.[code] ?? known?.status;
        expect(status, `${e.method} ${e.path}: ${code}`).toBe(given === undefined ? 'default' : String(given));
      }
    }
    expect(doc['components']['schemas']['ErrorCode']['enum']).toEqual(Object.keys(ERROR_CODES));
  });

  it('types every amount as a decimal string: the numeric fields are counts, scales, bps and seconds only', () => {
    const numeric = new Set<string>();
    const walk = (node: unknown, name?: string): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, name));
      if (typeof node !== 'object' || node === null) return;
      const o = node as Json;
      if (name !== undefined && (o['type'] === 'number' || o['type'] === 'integer')) numeric.add(name);
      for (const [k, v] of Object.entries(o)) {
        if (k === 'properties') for (const [p, schema] of Object.entries(v as Json)) walk(schema, p);
        else walk(v, ['anyOf', 'oneOf', 'allOf', 'items'].includes(k) ? name : undefined);
      }
    };
    walk(doc['components']);
    walk(doc['paths']);
    // A new numeric field fails here until someone checks it is not an amount.
    expect([...numeric].sort()).toEqual(
      [
        'bytes',
        'display_scale',
        'expired_at',
        'expires_at',
        'fee_ledger_scale',
        'ledger_scale',
        'ledger_scale_from',
        'ledger_scale_to',
        'level',
        'moved_bps',
        'remaining',
        'retry_after',
        'round',
        'rows',
        'scale',
        'slippage_bps',
        'status_version',
      ].sort(),
    );
    expect(doc['components']['schemas']['DecimalString']).toMatchObject({ type: 'string', pattern: expect.any(String) });
    const amount = doc['components']['schemas']['WithdrawalOrder']['properties']['amount'] as Json;
    expect(amount['$ref']).toBe('#/components/schemas/DecimalString');
    // A request amount carries no sign, and is positive where the spec says so.
    const body = doc['paths']['/v1/withdrawals']['post']['requestBody']['content']['application/json']['schema'] as Json;
    expect(body['properties']['amount']['$ref']).toBe('#/components/schemas/PositiveDecimalString');
    const quote = doc['paths']['/v1/qrpay/quotes']['post']['requestBody']['content']['application/json']['schema'] as Json;
    expect(quote['properties']['amount']['$ref']).toBe('#/components/schemas/UnsignedDecimalString');
  });
});

describe('openapi.json against the SDK’s schemas', () => {
  it('the pending action: the document accepts and refuses what the SDK’s schema does (a known kind needs its fields, an unknown kind passes)', () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: false, formats: { 'date-time': true } });
    const ID = 'https://merchant-stablecoin.invalid/openapi.json';
    ajv.addSchema({ ...doc, $id: ID });
    const validate = ajv.compile({ $ref: `${ID}#/components/schemas/PendingAction` });
    const { new_total: _, ...withoutNewTotal } = slippage;
    const actions: Record<string, unknown> = {
      slippage,
      supplement,
      'slippage alone': { kind: 'slippage' },
      'supplement alone': { kind: 'supplement' },
      'slippage without new_total': withoutNewTotal,
      'an unknown kind': { kind: 'fx_reprice', foo: 1 },
      'no kind': { foo: 1 },
    };
    const verdicts = Object.fromEntries(
      Object.entries(actions).map(([name, a]) => [name, { document: validate(a), sdk: pendingActionSchema.safeParse(a).success }]),
    );
    expect(verdicts).toEqual({
      slippage: { document: true, sdk: true },
      supplement: { document: true, sdk: true },
      'slippage alone': { document: false, sdk: false },
      'supplement alone': { document: false, sdk: false },
      'slippage without new_total': { document: false, sdk: false },
      'an unknown kind': { document: true, sdk: true },
      'no kind': { document: false, sdk: false },
    });
  });
});

describe('openapi.json against the sandbox’s route table', () => {
  const template = (path: string): string => path.replace(/:(\w+)/g, '{$1}');
  const routes = new Map(ALL_ROUTES.map((r) => [`${r.method} ${template(r.path)}`, r]));

  it('the sandbox serves every operation, with the same method and path', () => {
    const missing = operations.map((o) => o.route).filter((r) => !routes.has(r) && r !== 'POST /v1/connect/token');
    expect(missing).toEqual([]);
  });

  it('the sandbox never requires a header the document does not; where the spec shows the endpoint, the flags are equal', () => {
    for (const e of ENDPOINTS) {
      const route = routes.get(`${e.method} ${e.path}`);
      if (!route) continue;
      const op = opOf(e);
      const name = `${e.method} ${e.path}`;
      // A client built from the document sends what it marks required: the sandbox may relax a
      // header on endpoints the spec only names (docs/testing.md lists each), never demand one.
      if (route.member === 'required') expect(op['x-member-scope'], name).toBe('required');
      if (route.idempotency === 'required') expect(op['x-idempotency'], name).toBe('required');
      if (op['x-shape'] === 'shown') {
        expect(route.member, name).toBe(op['x-member-scope'] === 'none' ? 'none' : 'required');
        expect(route.idempotency, name).toBe(op['x-idempotency']);
      }
      // A scope the spec names is enforced; elsewhere the sandbox may check one of its choosing.
      if (op['x-scope'] !== null) expect(route.scope, name).toBe(op['x-scope']);
    }
  });
});
