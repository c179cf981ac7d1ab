/**
 * docs/webhooks.md lists the event types the specification names (the ones the SDK types and the
 * ones named without a payload), says which calls emit none, and says plainly that no event
 * reports a withdrawal's outcome: the merchant confirms or fails the withdrawal itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NAMED_EVENT_TYPES, TYPED_EVENT_TYPES } from '../../src/webhooks/event-types.js';

const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** The text of a `##`/`###` section, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`docs/webhooks.md has no "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const next = new RegExp(`^#{1,${level}} `, 'm').exec(doc.slice(start + heading.length));
  return doc.slice(start, next === null ? undefined : start + heading.length + next.index);
}

describe('docs/webhooks.md: the events', () => {
  const table = section('## The event types the spec names');

  it('has one row per event type the spec names, and no other', () => {
    const rows = [...table.matchAll(/^\| `([a-z0-9_]+(?:\.[a-z0-9_]+)+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...TYPED_EVENT_TYPES, ...NAMED_EVENT_TYPES]);
  });

  it('names the calls that emit no webhook', () => {
    for (const call of ['POST /v1/merchant/conversions', 'POST /v1/merchant/topups', 'POST /v1/kyc/applications']) {
      expect(table).toContain(`\`${call}\``);
    }
  });

  it('says that no event reports a withdrawal outcome: the merchant confirms or fails it', () => {
    const withdrawals = section("### No event reports a withdrawal's outcome");
    expect(withdrawals).toContain('`POST /v1/withdrawals/{id}/confirm`');
    expect(withdrawals).toContain('`POST /v1/withdrawals/{id}/fail`');
    expect(withdrawals).toContain('never comes');
    expect(withdrawals).toMatch(/member\.withdrawals\.confirm\(order\.id\)[\s\S]*member\.withdrawals\.fail\(order\.id\)/);
    expect([...TYPED_EVENT_TYPES, ...NAMED_EVENT_TYPES].filter((t) => t.includes('withdraw'))).toEqual([]);
  });
});
