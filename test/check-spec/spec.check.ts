/**
 * `npm run check:spec`: the project's facts against the specification document. Not part of
 * `npm test` (a user's clone has no document beside it); `.ci/run` runs it when the document is
 * there. `npm run check:spec -- --update` rewrites the fixture after a spec change.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, INTERNAL_ENDPOINT_IDS, NAME_ONLY_ENDPOINTS, SHOWN_ENDPOINTS } from '../../src/facts/endpoints.js';
import { ERROR_CODES, ERROR_TYPES } from '../../src/facts/error-codes.js';
import {
  NAME_ONLY_CODES,
  NOT_THIS_ENDPOINT,
  SPEC,
  catalogue,
  deriveFacts,
  retryRuleCodes,
  route,
  specSections,
  typeStatuses,
} from './spec-facts.js';

const FIXTURE = new URL('../fixtures/spec-facts.json', import.meta.url);
const SECTIONS = specSections(SPEC);
const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

describe('the fixture the suite reads', () => {
  it('holds exactly the facts derived from the spec', () => {
    const derived = `${JSON.stringify(deriveFacts(SPEC), null, 2)}\n`;
    if (process.env['UPDATE_SPEC_FACTS'] === '1') writeFileSync(FIXTURE, derived);
    expect(readFileSync(FIXTURE, 'utf8')).toBe(derived);
  });
});

describe('the endpoint table', () => {
  it('has the 21 endpoints with shapes and the 34 referenced by name only, in the spec order', () => {
    const facts = deriveFacts(SPEC);
    expect(facts.shownRoutes).toHaveLength(21);
    expect(facts.nameOnlyRoutes).toHaveLength(34);
    expect(SHOWN_ENDPOINTS.map(route)).toEqual(facts.shownRoutes);
    expect(NAME_ONLY_ENDPOINTS.map(route)).toEqual(facts.nameOnlyRoutes);
    expect(ENDPOINTS).toHaveLength(55);
  });

  it('agrees with every spec section that states scope, member scope, key or funds', () => {
    for (const e of SHOWN_ENDPOINTS) {
      const section = SECTIONS.get(route(e))!;
      const head = flat(section.split(/\n\s*\n/)[1] ?? '');
      const scope = /\bScope `([^`]+)`/.exec(head)?.[1];
      const facts = {
        scope,
        memberScoped: /\bMember-scoped\b/.test(head) ? true : /\bMerchant account\b/.test(head) ? false : e.memberScoped,
        idempotent: /\bIdempotency key (\(UUID v4\) )?required\b/.test(head)
          ? true
          : /\bNo idempotency key\b/.test(head)
            ? false
            : e.sendsKey,
        movesFunds: /\bMoves funds\b/.test(head) ? true : e.journaled,
      };
      expect({ route: route(e), ...facts }).toEqual({
        route: route(e),
        scope: e.scope,
        memberScoped: e.memberScoped,
        idempotent: e.sendsKey,
        movesFunds: e.journaled,
      });
    }
  });

  it('finds error codes in the section of every shown endpoint except the token exchange', () => {
    const facts = deriveFacts(SPEC);
    for (const e of SHOWN_ENDPOINTS) {
      expect(SECTIONS.has(route(e))).toBe(true);
      if (!INTERNAL_ENDPOINT_IDS.includes(e.id))
        expect(`${route(e)}: ${facts.endpointErrorCodes[route(e)]!.length > 0}`).toBe(`${route(e)}: true`);
    }
  });

  it('keeps the exclusions and the name-only codes anchored in the spec text', () => {
    for (const [key, codes] of Object.entries(NOT_THIS_ENDPOINT))
      for (const code of codes) expect(SECTIONS.get(key)).toContain(`\`${code}\``);
    for (const [key, entries] of Object.entries(NAME_ONLY_CODES)) {
      expect(SECTIONS.has(key)).toBe(false);
      expect(ENDPOINTS.map(route)).toContain(key);
      for (const { code, quote } of entries) {
        expect(SPEC).toContain(quote);
        expect(code in ERROR_CODES).toBe(true);
      }
    }
  });
});

describe('the error catalogue', () => {
  it('has the 50 codes of the spec, in its order, with its HTTP status', () => {
    const rows = catalogue(SPEC);
    expect(rows).toHaveLength(50);
    expect(Object.entries(ERROR_CODES).map(([code, info]) => ({ code, status: info.status }))).toEqual(rows);
  });

  it('maps every type to the status of the spec, and gives each code the type of its status', () => {
    expect(Object.fromEntries(typeStatuses(SPEC))).toEqual(ERROR_TYPES);
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      // duplicate_resource is a 409 outside the idempotency family; its type follows its status.
      expect(`${code}: ${ERROR_TYPES[info.type]}`).toBe(`${code}: ${info.status}`);
    }
  });

  it('classes the codes of the retry rules as the spec does', () => {
    for (const code of retryRuleCodes(SPEC, 'Retry with the same idempotency key')) {
      const expected = code === 'step_up_required' ? 'after_step_up' : 'same_key';
      expect(`${code}: ${ERROR_CODES[code as keyof typeof ERROR_CODES].retry}`).toBe(`${code}: ${expected}`);
    }
    for (const code of retryRuleCodes(SPEC, 'Do not retry')) {
      expect(`${code}: ${ERROR_CODES[code as keyof typeof ERROR_CODES].retry}`).toBe(`${code}: never`);
    }
    for (const [code, info] of Object.entries(ERROR_CODES))
      if (info.status === 404) expect(`${code}: ${info.retry}`).toBe(`${code}: never`);
  });
});
