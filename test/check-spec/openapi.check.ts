/**
 * `npm run check:spec`: the OpenAPI document against the specification, fact by fact. Each fact
 * is read from the spec (an endpoint's section, a field table, the catalogue, the limits, the
 * events) for every endpoint of the SDK's table, and held against `openapi.json`; the count of
 * facts checked and of those that disagree is printed by category, and any disagreement fails.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import { fieldFacts } from './openapi-field-facts.js';
import { operationFacts, type Fact } from './openapi-facts.js';
import { route } from './spec-facts.js';

const facts: Fact[] = [...operationFacts(), ...fieldFacts()];

describe('openapi.json against the specification, fact by fact', () => {
  it('agrees with every fact checked', () => {
    const byCategory = new Map<string, { checked: number; disagreeing: number }>();
    for (const f of facts) {
      const c = byCategory.get(f.category) ?? { checked: 0, disagreeing: 0 };
      c.checked++;
      if (!f.holds) c.disagreeing++;
      byCategory.set(f.category, c);
    }
    const disagreeing = facts.filter((f) => !f.holds);
    const lines = [...byCategory].map(([name, c]) => `  ${name}: ${c.checked} checked, ${c.disagreeing} disagreeing`);
    console.log(`openapi.json vs the spec: ${facts.length} facts checked, ${disagreeing.length} disagreeing\n${lines.join('\n')}`);
    expect(disagreeing.map((f) => `${f.category} | ${f.subject} | ${f.claim}`)).toEqual([]);
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
