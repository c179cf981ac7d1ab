/**
 * Every fact of the spec held against the OpenAPI document (`OPENAPI_DOCUMENT`, else
 * `openapi.json`), and the report `npm run check:spec` prints of them.
 */
import { fieldFacts } from './openapi-field-facts.js';
import { operationFacts, type Category, type Fact } from './openapi-facts.js';
import { proseFacts } from './openapi-prose-facts.js';

/** The facts: operations, fields, and those the spec states in prose. */
export function allFacts(): Fact[] {
  const prose: Fact[] = [];
  proseFacts((category: Category, subject, claim, holds) => prose.push({ category, subject, claim, holds }));
  return [...operationFacts(), ...fieldFacts(), ...prose];
}

/** A fact as one line: `category | subject | claim`. */
export const line = (f: Fact): string => `${f.category} | ${f.subject} | ${f.claim}`;

/** The counts by category, then each disagreeing fact on a line of its own. */
export function report(facts: readonly Fact[]): string {
  const byCategory = new Map<string, { checked: number; disagreeing: number }>();
  for (const f of facts) {
    const c = byCategory.get(f.category) ?? { checked: 0, disagreeing: 0 };
    c.checked++;
    if (!f.holds) c.disagreeing++;
    byCategory.set(f.category, c);
  }
  const disagreeing = facts.filter((f) => !f.holds);
  const lines = [...byCategory].map(([name, c]) => `  ${name}: ${c.checked} checked, ${c.disagreeing} disagreeing`);
  return [
    `openapi.json vs the spec: ${facts.length} facts checked, ${disagreeing.length} disagreeing`,
    ...lines,
    ...disagreeing.map((f) => `  disagreeing: ${line(f)}`),
  ].join('\n');
}
