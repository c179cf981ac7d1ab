/**
 * `npm run check:spec`: the OpenAPI document against the specification, fact by fact. Each fact
 * is read from the spec (an endpoint's section, a field table, the catalogue, the limits, the
 * events) for every endpoint of the SDK's table, and held against `openapi.json`; the count of
 * facts checked and of those that disagree is printed by category, and any disagreement fails.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import { allFacts, line, report } from './all-facts.js';
import { route } from './spec-facts.js';

const facts = allFacts();

describe('openapi.json against the specification, fact by fact', () => {
  it('agrees with every fact checked', () => {
    console.log(report(facts));
    expect(facts.filter((f) => !f.holds).map(line)).toEqual([]);
  });

  it('checks every endpoint of the table, in each category an endpoint has', () => {
    for (const e of ENDPOINTS) {
      const mine = facts.filter((f) => f.subject === route(e));
      for (const category of ['operations', 'auth', 'headers'] as const) {
        expect(`${route(e)}: ${mine.filter((f) => f.category === category).length > 0}`).toBe(`${route(e)}: true`);
      }
    }
    expect(facts.length).toBeGreaterThan(1000);
  });
});
