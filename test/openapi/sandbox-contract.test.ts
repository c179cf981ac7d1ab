/**
 * A contract test of the sandbox against the OpenAPI document: the scenario suite of
 * `test/integration/scenarios.ts` runs again in server mode (real sockets), with the client's
 * fetch recording every answer of the simulated service; then every 2xx it answered must be one of
 * the operation's documented success statuses and validate against the operation's response
 * schema (ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1). Answers of routes the document
 * does not have (the simulator's own reads, the admin API) are counted, not validated.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { FetchFunction } from '../../src/index.js';
import { serverMode, type Mode } from '../integration/harness.js';
import { describeScenarios } from '../integration/scenarios.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document read as JSON of many shapes, field by field
type Json = Record<string, any>;

interface Answer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
}

const answers: Answer[] = [];

/** The global fetch, recording each answer (its body read from a clone). */
const recordingFetch: FetchFunction = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(input);
  const method = (init.method ?? 'GET').toUpperCase();
  answers.push({ method, path: url.pathname, status: res.status, body: await res.clone().text() });
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

describe('the sandbox’s 2xx answers in the scenario suite, against openapi.json', () => {
  it('each is a documented success status of its operation and validates against its response schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    // The whole document as one schema resource, so that `#/components/schemas/...` resolve.
    ajv.addSchema({ ...doc, $id: ID });
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
    console.log(
      `contract: ${total} 2xx answers on ${validated.size} operations validated; ${undocumented} on routes the document does not have`,
    );
  });
});
