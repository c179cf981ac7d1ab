/**
 * Facts the spec states in prose rather than in a field table, held against the OpenAPI document:
 * the remittance pending action's kinds and their fields, the idempotency key of the quotes it
 * only names, the list bodies an endpoint section writes out (`{data: [...], next_cursor: null,
 * ...}`), the extra data fields of the webhook events, and the spec quotes the generator's rules
 * rest on. Each is read from the spec text, so a spec change moves the check with it.
 */
import { REQUEST_RULES } from '../../scripts/openapi/request-rules.js';
import { RESPONSE_RULES } from '../../scripts/openapi/response-rules.js';
import { DOC, accepts, field, jsonSchema, operation, parameters, requires, successes, types, type Json } from './openapi-doc.js';
import type { Category } from './openapi-facts.js';
import { deriveFacts, SPEC, specSections } from './spec-facts.js';

type Add = (category: Category, subject: string, claim: string, holds: boolean) => void;

const flat = (s: string): string => s.replace(/\s+/g, ' ');
const TIMESTAMP = '2026-08-13T10:00:00Z';

/** A sample value of the type a bullet states: `integers`, `decimal strings`, `ISO 8601`, `` `A` or `B` `` ... */
function sampleOf(type: string): unknown {
  if (/^integers?\b/.test(type)) return 1;
  if (/^decimal strings?\b/.test(type)) return '1.5';
  if (/^booleans?\b/.test(type)) return true;
  if (/^ISO 8601\b/.test(type)) return TIMESTAMP;
  if (/^always null\b/.test(type)) return null;
  const first = /^`([^`]+)` or `/.exec(type);
  if (first) return first[1];
  if (/^strings?\b/.test(type)) return 's';
  throw new Error(`pending action: no sample for the type "${type}" (teach sampleOf)`);
}

/** Resources > Remittance pending action: each `action.kind = K` with a complete sample built from its bullets. */
function pendingActionKinds(spec: string): Map<string, Record<string, unknown>> {
  const start = spec.indexOf('### Remittance pending action');
  const block = spec.slice(start, spec.indexOf('\n### ', start + 1));
  const kinds = new Map<string, Record<string, unknown>>();
  for (const m of block.matchAll(/^- `action\.kind = (\w+)`:\n((?: {2}- .*\n?)+)/gm)) {
    const sample: Record<string, unknown> = { kind: m[1] };
    for (const line of m[2]!.trimEnd().split('\n')) {
      const items = /^ {2}- `(\w+)\[\]`: (.*)[;.]$/.exec(line);
      if (items) {
        const item = Object.fromEntries([...items[2]!.matchAll(/`(\w+)` \(([^)]*)\)/g)].map((f) => [f[1]!, sampleOf(f[2]!)]));
        sample[items[1]!] = [item];
        continue;
      }
      const bullet = /^ {2}- (.*?) \((.*)\)[;.]$/.exec(line);
      if (!bullet) throw new Error(`pending action: unread bullet "${line}"`);
      for (const name of bullet[1]!.matchAll(/`(\w+)`/g)) sample[name[1]!] = sampleOf(bullet[2]!);
    }
    kinds.set(m[1]!, sample);
  }
  return kinds;
}

/** The pending action: a known kind needs its listed fields; an unknown kind passes ("shown unchanged"). */
function pendingActionFacts(add: Add): void {
  const key = 'GET /v1/remittances/{id}/pending-action';
  const action = field(jsonSchema(successes(operation(key))[0]?.[1]), 'action');
  const section = specSections(SPEC).get(key) ?? '';
  const known = /Known kinds: `(\w+)` and `(\w+)`/.exec(section);
  const kinds = pendingActionKinds(SPEC);
  const subject = 'Remittance pending action';
  add('response fields', subject, 'the spec lists the fields of each known kind', known !== null && kinds.size === 2);
  for (const kind of [known?.[1], known?.[2]]) if (kind) add('response fields', subject, `${kind} has its fields listed`, kinds.has(kind));
  for (const [kind, sample] of kinds) {
    add('response fields', subject, `${kind} with every listed field accepted`, accepts(action, sample));
    add('response fields', subject, `${kind} without its listed fields refused`, !accepts(action, { kind }));
    for (const name of Object.keys(sample).filter((n) => n !== 'kind')) {
      const { [name]: _, ...without } = sample;
      add('response fields', subject, `${kind} without ${name} refused`, !accepts(action, without));
    }
  }
  if (/Unknown kinds are shown unchanged/.test(section)) {
    add('response fields', subject, 'an unknown kind accepted, its fields kept', accepts(action, { kind: 'added_later', note: 'x' }));
  }
  // "`action` (object or null)".
  if (/`action` \(object or null\)/.test(SPEC)) add('response fields', subject, 'action null accepted', accepts(action, null));
}

/**
 * The quotes the spec only names: it shows their idempotency requirement nowhere ("For these: not
 * shown"), and every quote it shows takes no key, so the document must not declare one required.
 */
function quoteKeyFacts(add: Add): void {
  const derived = deriveFacts(SPEC);
  const sections = specSections(SPEC);
  const isQuote = (r: string): boolean => /^POST \S+\/quotes$/.test(r);
  const shown = derived.shownRoutes.filter(isQuote);
  const keyless = shown.filter((r) => /\bNo idempotency key\b/.test(flat(sections.get(r)?.split(/\n\s*\n/)[1] ?? '')));
  add('headers', 'Quotes', 'every quote the spec shows takes no idempotency key', shown.length > 0 && keyless.length === shown.length);
  if (keyless.length !== shown.length) return;
  for (const r of derived.nameOnlyRoutes.filter(isQuote)) {
    const op = operation(r);
    const key = parameters(op).find((p) => p['in'] === 'header' && p['name'] === 'x-idempotency-key');
    add(
      'headers',
      r,
      'x-idempotency-key not required (not shown; the quote shown takes none)',
      op !== undefined && key?.['required'] !== true && op['x-idempotency'] !== 'required',
    );
  }
}

/**
 * List bodies an endpoint section writes out, `200: {data: [x], next_cursor: null, has_more: false,
 * balances: [same array]}`: each named field required, `null` and `false` exactly those values
 * (a static list), `[same array]` an array of the rows of `data`.
 */
function listBodyFacts(add: Add): void {
  for (const [key, section] of specSections(SPEC)) {
    const body = /200(?: body)?: `\{(data: [^`{}]*)\}`/.exec(section)?.[1];
    if (body === undefined) continue;
    const schema = jsonSchema(successes(operation(key))[0]?.[1]);
    for (const part of body.split(', ')) {
      const [name, value] = part.split(': ') as [string, string | undefined];
      const f = field(schema, name);
      add('pagination', key, `${name} required`, requires(schema, name));
      if (value === 'null') add('pagination', key, `${name} null (a static list)`, accepts(f, null) && !accepts(f, 'c'));
      if (value === 'false') add('pagination', key, `${name} false (a static list)`, accepts(f, false) && !accepts(f, true));
      if (value === '[same array]') {
        const rows = JSON.stringify(field(schema, 'data.[]'));
        add(
          'pagination',
          key,
          `${name} an array of the rows of data`,
          types(f).has('array') && JSON.stringify(field(schema, `${name}.[]`)) === rows && rows !== undefined && !accepts(f, [{}]),
        );
      }
    }
  }
}

/** Events > Event types, "Extra data fields": each present in the event's data, optional where omitted, `_at` a timestamp. */
function webhookDataFacts(add: Add): void {
  const start = SPEC.indexOf('### Event types');
  const table = SPEC.slice(start, SPEC.indexOf('\nRules:', start));
  // Conventions: "Timestamps are ISO 8601 strings unless stated otherwise".
  const timestamps = /Timestamps are ISO 8601 strings unless stated otherwise/.test(SPEC);
  for (const row of table.matchAll(/^\| `([a-z0-9.]+)` \|(?:[^|]*\|){3} ([^|]*) \|$/gm)) {
    const body = jsonSchema((DOC['webhooks'] as Json | undefined)?.[row[1]!]?.['post']?.['requestBody']);
    const datas = ((body?.['allOf'] as Json[] | undefined) ?? []).map((b) => b['properties']?.['data'] as Json | undefined);
    for (const m of row[2]!.matchAll(/`(\w+)` \(([^)]*)\)/g)) {
      const name = m[1]!;
      const data = datas.find((d) => field(d, name) !== undefined);
      const f = field(data, name);
      add('webhooks', row[1]!, `data.${name} present`, f !== undefined);
      if (/\b(omitted|only when)\b/.test(m[2]!))
        add('webhooks', row[1]!, `data.${name} optional`, data !== undefined && !requires(data, name));
      if (timestamps && name.endsWith('_at'))
        add('webhooks', row[1]!, `data.${name} a timestamp (date-time)`, types(f).has('format:date-time'));
    }
  }
}

/** Every spec quote the generator's request and response rules rest on is in the spec. */
function ruleQuoteFacts(add: Add): void {
  const text = flat(SPEC);
  const quotes = new Set<string>();
  for (const rules of Object.values(REQUEST_RULES)) {
    for (const group of [rules.body, rules.query, rules.headers]) for (const r of Object.values(group ?? {})) quotes.add(r.spec);
    if (rules.bodyAdd) quotes.add(rules.bodyAdd.spec);
  }
  for (const fields of Object.values(RESPONSE_RULES)) for (const r of Object.values(fields)) quotes.add(r.spec);
  for (const q of quotes) add('rule quotes', 'Generator rules', `"${q}" is in the spec`, text.includes(flat(q)));
}

/** The prose facts. */
export function proseFacts(add: Add): void {
  pendingActionFacts(add);
  quoteKeyFacts(add);
  listBodyFacts(add);
  webhookDataFacts(add);
  ruleQuoteFacts(add);
}
