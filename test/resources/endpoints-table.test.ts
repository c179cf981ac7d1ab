import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, renderEndpointsDoc } from '../../scripts/gen-endpoints-doc.js';
import { MerchantClient } from '../../src/index.js';
import { ENDPOINTS, INTERNAL_ENDPOINT_IDS, NAME_ONLY_ENDPOINTS, SHOWN_ENDPOINTS } from '../../src/facts/endpoints.js';
import { FakeCaller, fakeRoot } from './fake-caller.js';
import { SAMPLES } from './samples.js';

// The spec's endpoint lists, kept as a fixture (`npm run check:spec` checks it against the document).
const SPEC_FACTS = JSON.parse(readFileSync(new URL('../fixtures/spec-facts.json', import.meta.url), 'utf8')) as {
  shownRoutes: string[];
  nameOnlyRoutes: string[];
};
const key = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

/** Walks `a.b.c` to `root.a.b.c`, or `member.b.c` to `root.member('x').b.c`. */
function resolve(root: object, id: string): unknown {
  const [head, ...rest] = id.split('.');
  let node: unknown =
    head === 'member' ? (root as { member(id: string): unknown }).member('ext-1') : (root as Record<string, unknown>)[head!];
  for (const part of rest) node = node === undefined || node === null ? undefined : (node as Record<string, unknown>)[part];
  return node;
}

describe('the endpoint table', () => {
  it('matches the spec: 21 endpoints with shapes and 34 referenced by name only', () => {
    expect(SPEC_FACTS.shownRoutes).toHaveLength(21);
    expect(SPEC_FACTS.nameOnlyRoutes).toHaveLength(34);
    expect(SHOWN_ENDPOINTS.map(key)).toEqual(SPEC_FACTS.shownRoutes);
    expect(NAME_ONLY_ENDPOINTS.map(key)).toEqual(SPEC_FACTS.nameOnlyRoutes);
    expect(ENDPOINTS).toHaveLength(55);
  });

  it('has unique ids and unique method+path pairs', () => {
    expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length);
    expect(new Set(ENDPOINTS.map(key)).size).toBe(ENDPOINTS.length);
  });

  it('names member-scoped endpoints member.* and only them', () => {
    for (const e of ENDPOINTS) expect(`${e.id}:${e.memberScoped}`).toBe(`${e.id}:${e.id.startsWith('member.')}`);
  });

  it('pins the special retry and logging rules', () => {
    const byId = new Map(ENDPOINTS.map((e) => [e.id, e]));
    const activate = byId.get('member.cards.activate')!;
    expect(activate).toMatchObject({ secretFields: ['pin'], sendsKey: true });
    expect(activate.lockout?.rule).toMatch(/^three failures lock the card for 24 hours/);
    expect(activate.lockout?.check).toContain('`active` means it succeeded');
    expect(activate.retry).toBeUndefined();
    expect(activate.noRetryCodes).toBeUndefined();
    // The spec counts failures against the customer on card activation only.
    expect(ENDPOINTS.filter((e) => e.lockout !== undefined).map((e) => e.id)).toEqual(['member.cards.activate']);
    expect(byId.get('member.remittances.cancel')!.noRetryCodes).toEqual(['api_error']);
    expect(byId.get('member.cards.unfreeze')!.noRetryCodes).toEqual(['api_error']);
    expect(byId.get('member.cards.updateLimits')).toMatchObject({ noRetryCodes: ['api_error'], sendsKey: false });
    expect(byId.get('member.qrpay.quote')!.sendsKey).toBe(false);
    // A key sent but not required: the quotes the spec only names (the one quote it shows takes none).
    const keyNotRequired = ENDPOINTS.filter((e) => e.keyNotRequired === true);
    expect(keyNotRequired.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /v1/remit/quotes', 'POST /v1/exchange/quotes']);
    expect(keyNotRequired.every((e) => e.sendsKey && NAME_ONLY_ENDPOINTS.includes(e))).toBe(true);
    expect(ENDPOINTS.filter((e) => e.method === 'GET').every((e) => !e.sendsKey && !e.journaled)).toBe(true);
  });

  it('docs/endpoints.md is the generated table (run `npx tsx scripts/gen-endpoints-doc.ts`)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderEndpointsDoc());
    for (const e of ENDPOINTS) expect(renderEndpointsDoc()).toContain(`\`${e.method} ${e.path}\``);
  });
});

describe('every endpoint is reachable from the client', () => {
  const callable = ENDPOINTS.filter((e) => !INTERNAL_ENDPOINT_IDS.includes(e.id));

  it('has one sample per callable endpoint, no missing, none extra', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(callable.map((e) => e.id).sort());
  });

  it('each id resolves to a method of the real client (client.a.b / client.member(id).b.c)', () => {
    const client = new MerchantClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'c', apiKey: 'k', signingKey: 's' });
    for (const e of callable) expect(`${e.id}:${typeof resolve(client, e.id)}`).toBe(`${e.id}:function`);
    expect(resolve(client, 'member.nothing.here')).toBeUndefined();
    // A member-optional endpoint is reached without a member too, and only those are.
    const optional = callable.filter((e) => e.memberOptional === true).map((e) => e.id.slice('member.'.length));
    expect(optional).toEqual(['withdrawals.confirm', 'withdrawals.fail']);
    for (const id of optional) expect(`${id}:${typeof resolve(client, id)}`).toBe(`${id}:function`);
  });

  it('each method hands its own descriptor to the pipeline', async () => {
    const api = new FakeCaller();
    const root = fakeRoot(api);
    for (const e of callable) {
      const sample = SAMPLES[e.id]!;
      api.reply = sample.reply;
      const before = api.calls.length;
      await sample.call(root);
      expect(api.calls.length - before).toBe(1);
      const recorded = api.calls[before]!;
      expect(recorded.endpoint).toBe(e);
      expect(recorded.args.member).toBe(e.memberScoped ? 'ext-42' : undefined);
    }
  });

  it('the merchant-level form of a member-optional endpoint hands the same descriptor, with no member', async () => {
    const api = new FakeCaller();
    const root = fakeRoot(api);
    api.reply = { id: 'wdr_1', status: 'confirmed' };
    await root.withdrawals.confirm('wdr_1');
    await root.withdrawals.fail('wdr_1', { note: 'reverted' });
    expect(api.calls.map((c) => [c.endpoint.id, c.args.member, c.args.pathParams, c.args.body])).toEqual([
      ['member.withdrawals.confirm', undefined, { id: 'wdr_1' }, {}],
      ['member.withdrawals.fail', undefined, { id: 'wdr_1' }, { note: 'reverted' }],
    ]);
  });
});
