/**
 * A contract test of the sandbox against the OpenAPI document: the scenario suite of
 * `test/integration/scenarios.ts` runs again in server mode (real sockets), with the client's
 * fetch recording every answer of the simulated service; then every 2xx it answered must be one of
 * the operation's documented success statuses and validate against the operation's response
 * schema (ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1) and against the zod schema a
 * second generator (@hey-api/openapi-ts) writes for it. Every error answer must be declared for
 * its operation: its status, its code among that status's `x-error-codes`, its body the envelope,
 * and each header it carries (`X-Request-Id`, `X-Idempotent-Replay`, `Retry-After`) declared on
 * that response. Answers of routes the document does not have (the simulator's own reads, the
 * admin API) are counted, not validated.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchFunction } from '../../src/index.js';
import { ERROR_CODES } from '../../src/facts/error-codes.js';
import { serverMode, type Mode } from '../integration/harness.js';
import { describeScenarios } from '../integration/scenarios.js';
import { generateHeyApiClient, type GeneratedClient } from './hey-api-generate.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document read as JSON of many shapes, field by field
type Json = Record<string, any>;

interface Answer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
  readonly headers: Headers;
}

const answers: Answer[] = [];

/** The global fetch, recording each answer (its body read from a clone). */
const recordingFetch: FetchFunction = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(input);
  const method = (init.method ?? 'GET').toUpperCase();
  answers.push({ method, path: url.pathname, status: res.status, body: await res.clone().text(), headers: res.headers });
  return res;
};

/** Server mode, every client of it on the recording fetch (the fetch transport over real sockets). */
function recordingMode(): Mode {
  const base = serverMode();
  return { name: base.name, open: (options = {}) => base.open({ ...options, client: { fetch: recordingFetch, ...options.client } }) };
}

describeScenarios(recordingMode());

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Json;
const ID = 'https://merchant-stablecoin.invalid/openapi.json';

/** The documented operation of a request, by method and path template. */
function operationOf(method: string, path: string): { template: string; op: Json } | undefined {
  for (const [template, item] of Object.entries(doc['paths'] as Json)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const op = (item as Json)[method.toLowerCase()] as Json | undefined;
    if (op && pattern.test(path)) return { template, op };
  }
  return undefined;
}

let generated: GeneratedClient;
beforeAll(async () => {
  generated = await generateHeyApiClient();
});
afterAll(() => generated?.dispose());

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
// `format: date-time` checked, as RFC 3339 (ISO 8601 with a zone), the form a generator's zod checks.
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
// The whole document as one schema resource, so that `#/components/schemas/...` resolve.
ajv.addSchema({ ...doc, $id: ID });

/** A `$ref` inside the document, resolved. */
function deref(node: Json): Json {
  const ref = node['$ref'] as string | undefined;
  return ref
    ? ref
        .slice(2)
        .split('/')
        .reduce((at: Json, key) => at[key] as Json, doc)
    : node;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

describe('the sandbox’s 2xx answers in the scenario suite, against openapi.json', () => {
  it('each is a documented success status of its operation and validates against its response schema and the generated zod', async () => {
    const zod = await generated.zod();
    let zodChecked = 0;
    const failures: string[] = [];
    const validated = new Map<string, number>();
    let undocumented = 0;
    for (const a of answers.filter((x) => x.status >= 200 && x.status < 300)) {
      const found = operationOf(a.method, a.path);
      if (!found) {
        undocumented++;
        continue;
      }
      const key = `${a.method} ${found.template}`;
      const responses = found.op['responses'] as Json;
      const status = String(a.status);
      const response = (responses[status] ?? responses['2XX']) as Json | undefined;
      if (!response) {
        failures.push(`${key}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
        continue;
      }
      const pointer = `#/paths/${found.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${a.method.toLowerCase()}/responses/${responses[status] ? status : '2XX'}/content/application~1json/schema`;
      const validate = ajv.getSchema(`${ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      const body: unknown = JSON.parse(a.body);
      if (!validate(body)) failures.push(`${key} ${status}: ${ajv.errorsText(validate.errors)}\n  ${a.body.slice(0, 300)}`);
      // The zod a second generator writes for the success answer (none where the shape is not shown).
      const schema = zod[`z${cap(found.op['operationId'] as string)}Response`];
      if (schema) {
        const parsed = schema.safeParse(body);
        if (!parsed.success) failures.push(`${key} ${status} (hey-api zod): ${parsed.error?.message ?? ''}\n  ${a.body.slice(0, 300)}`);
        zodChecked++;
      }
      validated.set(key, (validated.get(key) ?? 0) + 1);
    }
    expect(failures).toEqual([]);
    // The suite reaches most of the document, and the shown shapes it exercises.
    const total = [...validated.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(60);
    expect(validated.size).toBeGreaterThanOrEqual(20);
    const shown = [
      'POST /v1/connect/token',
      'POST /v1/withdrawals',
      'POST /v1/qrpay/quotes',
      'POST /v1/kyc/applications',
      'POST /v1/kyc/quick',
      'POST /v1/merchant/conversions',
      'POST /v1/merchant/topups',
      'GET /v1/balances',
      'POST /v1/remittances/{id}/cancel',
      'POST /v1/cards/{id}/unfreeze',
      'GET /v1/reports',
      'GET /v1/remittances/{id}/pending-action',
      'GET /v1/cards/{id}/close-check',
      'POST /v1/cards/{id}/activate',
      'POST /v1/sandbox/faucet',
      'PATCH /v1/cards/{id}/limits',
    ];
    for (const key of shown) {
      expect(validated.has(key), key).toBe(true);
    }
    expect(zodChecked).toBeGreaterThan(30);
    console.log(
      `contract: ${total} 2xx answers on ${validated.size} operations validated (${zodChecked} by the hey-api zod too); ${undocumented} on routes the document does not have`,
    );
  });

  it('each error answer is declared for its operation: status, code, envelope and headers', () => {
    const failures: string[] = [];
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    let checked = 0;
    // A non-JSON answer is an injected proxy page (test/integration's faults), never the service's.
    const fromService = (x: Answer) => (x.headers.get('content-type') ?? '').startsWith('application/json');
    for (const a of answers.filter((x) => x.status >= 400 && fromService(x))) {
      const found = operationOf(a.method, a.path);
      if (!found) continue;
      const key = `${a.method} ${found.template}`;
      const responses = found.op['responses'] as Json;
      const status = String(a.status);
      const declared = responses[status] ? deref(responses[status] as Json) : undefined;
      const body = JSON.parse(a.body) as Json;
      const code = (body['code'] ?? body['error']?.['code']) as string | undefined;
      checked++;
      if (!declared) {
        failures.push(`${key}: status ${status} (${code}) is not declared`);
        continue;
      }
      // A code outside the catalogue is the spec's "unknown code" (handled as api_error): the
      // envelope admits any string there, so only catalogue codes must be listed.
      const listed = ((declared['x-error-codes'] as string[] | undefined) ?? []).includes(code ?? '');
      if (!listed && code !== undefined && code in ERROR_CODES) failures.push(`${key} ${status}: code ${code} is not declared`);
      // The declared schema, its local references made absolute within the document resource.
      const schema = JSON.stringify(declared['content']['application/json']['schema']).replaceAll('"#/components/', `"${ID}#/components/`);
      const validate = compiled.get(schema) ?? ajv.compile(JSON.parse(schema) as Json);
      compiled.set(schema, validate);
      if (!validate(body)) failures.push(`${key} ${status}: ${ajv.errorsText(validate.errors)}`);
      const headers = (declared['headers'] ?? {}) as Json;
      for (const [name, present] of [
        ['X-Request-Id', true],
        ['X-Idempotent-Replay', a.headers.has('x-idempotent-replay')],
        ['Retry-After', a.headers.has('retry-after')],
      ] as const) {
        if (present && !headers[name]) failures.push(`${key} ${status}: header ${name} is not declared`);
      }
      if (!a.headers.get('x-request-id')) failures.push(`${key} ${status}: no X-Request-Id`);
      else if (body['request_id'] !== undefined && body['request_id'] !== a.headers.get('x-request-id'))
        failures.push(`${key} ${status}: request_id differs`);
    }
    expect([...new Set(failures)]).toEqual([]);
    expect(checked).toBeGreaterThan(20);
    console.log(`contract: ${checked} error answers declared for their operations`);
  });
});
