/**
 * The spec's field tables held against the OpenAPI document: every `| Body field |` and `| Query |`
 * row of an endpoint section (presence, required, the values its type column lists, the limits its
 * rule states), and every row of the Resources tables against the success answer that carries the
 * resource (presence, type, timestamps). Limits are checked as behaviour: the document must refuse
 * the value the rule rules out and accept its valid neighbour.
 */
import { ENDPOINTS, SHOWN_ENDPOINTS } from '../../src/facts/endpoints.js';
import { accepts, field, jsonSchema, operation, parameters, requires, successes, types, type Json } from './openapi-doc.js';
import type { Category, Fact } from './openapi-facts.js';
import { route, SPEC, specSections } from './spec-facts.js';

type Add = (category: Category, subject: string, claim: string, holds: boolean) => void;

/** The rows of the first markdown table after `from` whose header starts with `head`. */
function tableRows(text: string, head: string): string[][] {
  const start = text.indexOf(`| ${head} |`);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of text.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** Behaviour a rule states: `[claim, refused, accepted]` pairs. */
function ruleChecks(rule: string, type: string): Array<[string, unknown, unknown]> {
  const out: Array<[string, unknown, unknown]> = [];
  const chars = /\b(?:At most|Maximum) (\d+) characters\b/i.exec(rule);
  if (chars) out.push([`at most ${chars[1]} characters`, 'a'.repeat(Number(chars[1]) + 1), 'a'.repeat(Number(chars[1]))]);
  if (/\b(Greater than 0|Positive)\b/.test(rule)) {
    out.push(['positive: refuses 0', '0', '1'], ['positive: refuses a sign', '-5', '5']);
  }
  const digits = /at most (\d+) integer digits and (\d+) decimal places/.exec(rule);
  if (digits) {
    const [i, d] = [Number(digits[1]), Number(digits[2])];
    out.push(
      [`${i} integer digits`, '9'.repeat(i + 1), '9'.repeat(i)],
      [`${d} decimal places`, `1.${'1'.repeat(d + 1)}`, `1.${'1'.repeat(d)}`],
    );
  }
  const whole = /Maximum ([\d,]+) whole units/.exec(rule);
  if (whole) {
    const max = whole[1]!.replace(/,/g, '');
    out.push([`at most ${whole[1]} whole units`, `${max}.5`, max]);
  }
  if (/format `MM\/YY`/.test(rule)) out.push(['MM/YY', '2029-07', '07/29'], ['MM/YY month', '13/29', '12/29']);
  // "Only exactly `fiat` selects...; Everything else ... becomes `chain`": the enum is open.
  if (/Everything else|Unrecognized values are treated/.test(rule)) out.push(['open: unknown values accepted', 7, 'something-else']);
  else {
    const values = /^`(\w+)` or `(\w+)`$/.exec(type);
    if (values) out.push([`${values[1]} or ${values[2]}`, 'neither', values[1]]);
  }
  if (/^Two-letter uppercase code/.test(rule)) out.push(['two-letter uppercase', 'de', 'DE']);
  if (/`0` means no limit/.test(rule)) out.push(['0 allowed (no limit)', '-1', '0']);
  if (/below one currency unit is rejected/.test(rule)) out.push(['below one unit refused', '0.5', '1']);
  return out;
}

/** The request side: body and query tables of every shown endpoint. */
function requestFacts(add: Add): void {
  const sections = specSections(SPEC);
  for (const e of SHOWN_ENDPOINTS) {
    const key = route(e);
    const section = sections.get(key) ?? '';
    const op = operation(key);
    const body = jsonSchema(op?.['requestBody']);
    for (const [name, type, required, rule] of tableRows(section, 'Body field')) {
      const fieldName = name!.replace(/`/g, '');
      const schema = field(body, fieldName);
      add('request fields', key, `body ${fieldName} present`, schema !== undefined || /Never accepted/.test(rule!));
      if (/Never accepted/.test(rule!)) {
        // quote_id: "Any presence of the key, including empty string or null, returns 400".
        add(
          'request fields',
          key,
          `body ${fieldName} refused when present`,
          !accepts(body, { [fieldName]: null }) && !accepts(body, { [fieldName]: '' }),
        );
        continue;
      }
      if (required === 'yes') add('request fields', key, `body ${fieldName} required`, requires(body, fieldName));
      else add('request fields', key, `body ${fieldName} optional`, !requires(body, fieldName));
      if (type === 'string') add('request fields', key, `body ${fieldName} a string`, types(schema).has('string') && !accepts(schema, 25));
      if (type === 'object') add('request fields', key, `body ${fieldName} an object`, types(schema).has('object'));
      // "Default `member`": the value the service assumes when the field is omitted.
      const byDefault = /^Default `([^`]+)`/.exec(rule!)?.[1];
      if (byDefault !== undefined) add('request fields', key, `body ${fieldName} default ${byDefault}`, schema?.['default'] === byDefault);
      for (const [claim, refused, accepted] of ruleChecks(rule!, type!)) {
        add('request fields', key, `body ${fieldName} ${claim}`, !accepts(schema, refused) && accepts(schema, accepted));
      }
    }
    for (const [name, type, required, rule] of tableRows(section, 'Query')) {
      const p = parameters(op).find((x) => x['in'] === 'query' && x['name'] === name!.replace(/`/g, ''));
      add('request fields', key, `query ${name} present`, p !== undefined);
      add(
        'request fields',
        key,
        `query ${name} ${required === 'yes' ? 'required' : 'optional'}`,
        (p?.['required'] === true) === (required === 'yes'),
      );
      for (const [claim, refused, accepted] of ruleChecks(rule!, type!)) {
        add(
          'request fields',
          key,
          `query ${name} ${claim}`,
          !accepts(p?.['schema'] as Json, refused) && accepts(p?.['schema'] as Json, accepted),
        );
      }
    }
    // Query lines in prose: "Query `line`: `express` or `pobo`, optional. ... Unrecognized values are treated as `express`."
    const line = /^- Query `(\w+)`[^:]*: (.*)$/m.exec(section);
    if (line) {
      const p = parameters(op).find((x) => x['in'] === 'query' && x['name'] === line[1]);
      add('request fields', key, `query ${line[1]} present and optional`, p !== undefined && p['required'] !== true);
      for (const [claim, refused, accepted] of ruleChecks(line[2]!, '')) {
        add(
          'request fields',
          key,
          `query ${line[1]} ${claim}`,
          !accepts(p?.['schema'] as Json, refused) && accepts(p?.['schema'] as Json, accepted),
        );
      }
    }
  }
}

/** Resources heading -> the route whose success answer carries it, and where in that answer. */
const RESOURCES: Readonly<Record<string, { route: string; at: string }>> = {
  'Balance row (one per asset)': { route: 'GET /v1/balances', at: 'data.[]' },
  'Withdrawal order': { route: 'POST /v1/withdrawals', at: '' },
  'QR payment quote': { route: 'POST /v1/qrpay/quotes', at: '' },
  'Quote item fields:': { route: 'POST /v1/qrpay/quotes', at: 'chosen' },
  'KYC application': { route: 'POST /v1/kyc/applications', at: '' },
  'Quick KYC binding result': { route: 'POST /v1/kyc/quick', at: '' },
  'Merchant conversion': { route: 'POST /v1/merchant/conversions', at: '' },
  'Prepaid top-up declaration': { route: 'POST /v1/merchant/topups', at: '' },
  'Personal remittance account application': { route: 'POST /v1/remit/vp/applications', at: '' },
  'Card close precheck (camelCase field names)': { route: 'GET /v1/cards/{id}/close-check', at: '' },
};

/** The response side: each Resources table row in the answer that carries it. */
function responseFacts(add: Add): void {
  const resources = SPEC.slice(SPEC.indexOf('## Resources and their fields'), SPEC.indexOf('\n## States'));
  for (const [heading, where] of Object.entries(RESOURCES)) {
    const at = resources.indexOf(heading.endsWith(':') ? `\n${heading}` : `### ${heading}`);
    add('response fields', heading, 'the spec has the table', at >= 0);
    if (at < 0) continue;
    const op = ENDPOINTS.find((e) => route(e) === where.route) ? operation(where.route) : undefined;
    const answer = jsonSchema(successes(op)[0]?.[1]);
    const base = where.at ? field(answer, where.at) : answer;
    for (const [names, type, notes] of tableRows(resources.slice(at), 'Field')) {
      for (const name of names!.split(', ')) {
        const f = field(base, name);
        const subject = `${heading}: ${name}`;
        add('response fields', subject, 'present', f !== undefined);
        const t = types(f);
        if (type === 'integer') add('response fields', subject, 'an integer', t.has('integer') && !accepts(f, 1.5));
        if (type === 'boolean') add('response fields', subject, 'a boolean', t.has('boolean'));
        // Response amounts stay lenient: a decimal string, signed or not, never a number.
        if (type === 'decimal string')
          add('response fields', subject, 'a decimal string', accepts(f, '12.5') && accepts(f, '-1') && !accepts(f, 12.5));
        if (type === 'string' && !/ISO 8601/.test(notes ?? '')) add('response fields', subject, 'a string', t.has('string'));
        if (/ISO 8601/.test(notes ?? '')) add('response fields', subject, 'a timestamp (date-time)', t.has('format:date-time'));
        if (/or empty string/.test(notes ?? '')) add('response fields', subject, 'or the empty string', accepts(f, ''));
        const chars = /\bUp to (\d+) characters\b/.exec(notes ?? '')?.[1];
        if (chars !== undefined) {
          const n = Number(chars);
          add('response fields', subject, `up to ${n} characters`, accepts(f, 'a'.repeat(n)) && !accepts(f, 'a'.repeat(n + 1)));
        }
        if (/^array/.test(type ?? '')) add('response fields', subject, 'an array', t.has('array'));
        if (/^object/.test(type ?? '')) add('response fields', subject, 'an object', t.has('object'));
      }
    }
  }
  // Other response shapes: the token's `expired_at` (Unix seconds) is an integer.
  const token = jsonSchema(successes(operation('POST /v1/connect/token'))[0]?.[1]);
  add('response fields', 'Token: expired_at', 'Unix seconds, an integer', types(field(token, 'expired_at')).has('integer'));
  const report = field(jsonSchema(successes(operation('GET /v1/reports'))[0]?.[1]), 'data.[]');
  for (const name of ['rows', 'bytes'])
    add('response fields', `Export report: ${name}`, 'an integer', types(field(report, name)).has('integer'));
  for (const name of ['expires_at', 'created_at'])
    add('response fields', `Export report: ${name}`, 'a timestamp (date-time)', types(field(report, name)).has('format:date-time'));
  // "Clients display unknown values unchanged": the report status is open.
  add('response fields', 'Export report: status', 'open (unknown values kept)', accepts(field(report, 'status'), 'archived'));
}

/** The field facts. */
export function fieldFacts(): Fact[] {
  const facts: Fact[] = [];
  const add: Add = (category, subject, claim, holds) => facts.push({ category, subject, claim, holds });
  requestFacts(add);
  responseFacts(add);
  return facts;
}
