/**
 * Facts read from the specification document, for `npm run check:spec` only.
 *
 * The suite (`npm test`) never reads the document: a user's clone has nothing beside it. What
 * the suite needs from the spec is kept as a fixture of the project (`test/fixtures/spec-facts.json`),
 * and this module derives the same facts from the document so that `check:spec` can show that
 * the fixture, the endpoint table and the error catalogue still say what the spec says.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CODES } from '../../src/facts/error-codes.js';

/** Where the document is: `MERCHANT_API_SPEC`, else the shared folder beside the repository. */
const SPEC_PATH = resolve(process.env['MERCHANT_API_SPEC'] ?? '../shared/spec/api-spec.md');

/** The document's text. */
export const SPEC: string = readFileSync(SPEC_PATH, 'utf8');

/** `METHOD /path` of an endpoint. */
export const route = (e: { method: string; path: string }): string => `${e.method} ${e.path}`;

/** The spec's `### Title: \`METHOD /path\`` sections under Endpoints, by route. */
export function specSections(spec: string): Map<string, string> {
  const start = spec.indexOf('\n## Endpoints');
  const endpoints = spec.slice(start, spec.indexOf('\n## ', start + 1));
  const sections = new Map<string, string>();
  for (const part of endpoints.split(/\n(?=### )/)) {
    const m = /^### .*: `([A-Z]+) (\/v1[^`]*)`$/m.exec(part);
    if (m) sections.set(`${m[1]} ${m[2]}`, part);
  }
  return sections;
}

/** Routes of the sections that give an endpoint's shape, in the document's order. */
function shownRoutes(spec: string): string[] {
  return [...spec.matchAll(/^### .*: `([A-Z]+) (\/v1[^`]*)`$/gm)].map((m) => `${m[1]} ${m[2]}`);
}

/** Routes the Common rules reference "by name only". */
function nameOnlyRoutes(spec: string): string[] {
  const line = spec.split('\n').find((l) => l.includes('referenced by name only'));
  if (line === undefined) throw new Error('the spec has no "referenced by name only" line');
  return [...line.matchAll(/`([A-Z]+) (\/v1[^`]*)`/g)].map((m) => `${m[1]} ${m[2]}`);
}

/**
 * Codes a section mentions that belong to other endpoints, with the reason. Each entry must still
 * be found in its section (a stale entry fails the check).
 */
export const NOT_THIS_ENDPOINT: Readonly<Record<string, readonly string[]>> = {
  // "Missing any of the four parts makes `GET /v1/remit/payee-form-schema` and `POST /v1/remit/payees` return `corridor_not_supported`."
  'GET /v1/remit/corridors': ['corridor_not_supported'],
};

/**
 * Codes the spec ties to a name-only endpoint outside any endpoint section, each with the spec
 * text that says so (checked to be present). Their docs say "Errors: not shown beyond ...".
 */
export const NAME_ONLY_CODES: Readonly<Record<string, readonly { code: string; quote: string }[]>> = {
  'POST /v1/withdrawals/{id}/confirm': [
    { code: 'merchant_custody_shortfall', quote: "Confirming a withdrawal would make the merchant's custody declaration" },
  ],
  'POST /v1/merchant/deposit-address': [
    { code: 'service_unavailable', quote: '`retry_after` (seconds), only on `POST /v1/merchant/deposit-address`' },
  ],
  'GET /v1/remit/payee-form-schema': [
    {
      code: 'corridor_not_supported',
      quote: 'makes `GET /v1/remit/payee-form-schema` and `POST /v1/remit/payees` return `corridor_not_supported`',
    },
  ],
  'POST /v1/remit/payees': [
    {
      code: 'corridor_not_supported',
      quote: 'makes `GET /v1/remit/payee-form-schema` and `POST /v1/remit/payees` return `corridor_not_supported`',
    },
    { code: 'invalid_fields', quote: 'Only on `POST /v1/remit/payees` is this documented' },
  ],
};

/**
 * Error codes of a shown endpoint: every catalogue code its section names, plus every code on its
 * `- Errors:` line (which may name codes outside the catalogue, e.g. `card_product_not_found`).
 */
function sectionCodes(key: string, section: string): string[] {
  const codes = new Set<string>();
  for (const m of section.matchAll(/`([a-z][a-z0-9_]*)`/g)) if (m[1]! in ERROR_CODES) codes.add(m[1]!);
  for (const line of section.split('\n').filter((l) => l.startsWith('- Errors:'))) {
    for (const m of line.matchAll(/`([a-z][a-z0-9_]*)`/g)) codes.add(m[1]!);
  }
  for (const code of NOT_THIS_ENDPOINT[key] ?? []) codes.delete(code);
  return [...codes];
}

/**
 * The HTTP status a section gives each of its codes: the status written before the code on the
 * same line (`400 codes: ...`, `404 \`member_not_found\``, `503 \`service_unavailable\``), else the
 * catalogue's. A code outside the catalogue must have one written (`card_product_not_found`).
 */
function sectionStatuses(key: string, section: string, codes: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of section.split('\n')) {
    let status: number | undefined;
    for (const m of line.matchAll(/(?<![\w.,])([1-5]\d\d)(?![\w,])|`([a-z][a-z0-9_]*)`/g)) {
      if (m[1] !== undefined) status = Number(m[1]);
      else if (codes.includes(m[2]!) && !(m[2]! in out)) {
        const s = status ?? ERROR_CODES[m[2] as keyof typeof ERROR_CODES]?.status;
        if (s === undefined) throw new Error(`${key}: no status for \`${m[2]}\``);
        out[m[2]!] = s;
      }
    }
  }
  return out;
}

/** One row of the spec's code catalogue. */
export interface CatalogueRow {
  readonly code: string;
  readonly status: number;
}

/** The rows of Errors > Code catalogue, in order. */
export function catalogue(spec: string): CatalogueRow[] {
  const start = spec.indexOf('### Code catalogue');
  const table = spec.slice(start, spec.indexOf('\nAdditional points', start));
  return [...table.matchAll(/^\| ([a-z_]+) \| (\d{3}) \|/gm)].map((m) => ({ code: m[1]!, status: Number(m[2]) }));
}

/** Errors > Type to HTTP status, as `type -> status`. */
export function typeStatuses(spec: string): Map<string, number> {
  const start = spec.indexOf('### Type to HTTP status');
  const table = spec.slice(start, spec.indexOf('\n### ', start + 1));
  return new Map([...table.matchAll(/^\| ([a-z_]+) \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** The numbered item of Errors > Retry rules that starts with `lead`, its backticked codes. */
export function retryRuleCodes(spec: string, lead: string): string[] {
  const start = spec.indexOf('### Retry rules');
  const rules = spec.slice(start, spec.indexOf('\n### ', start + 1));
  const item = rules.split('\n').find((l) => /^\d+\. /.test(l) && l.slice(l.indexOf(' ') + 1).startsWith(lead));
  if (item === undefined) throw new Error(`no retry rule starting "${lead}"`);
  return [...item.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

/** What the suite keeps of the spec (the fixture's shape). */
export interface SpecFacts {
  readonly about: string;
  /** Routes whose shape the spec gives, in its order. */
  readonly shownRoutes: readonly string[];
  /** Routes the spec names only. */
  readonly nameOnlyRoutes: readonly string[];
  /** Error codes per route: a shown endpoint's section codes, or the codes the spec ties to a name-only one. */
  readonly endpointErrorCodes: Readonly<Record<string, readonly string[]>>;
  /** The HTTP status of each of those codes on that route (the catalogue's unless the section writes another). */
  readonly endpointErrorStatuses: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Derives the fixture's facts from the document. */
export function deriveFacts(spec: string): SpecFacts {
  const sections = specSections(spec);
  const endpointErrorCodes: Record<string, readonly string[]> = {};
  const endpointErrorStatuses: Record<string, Record<string, number>> = {};
  for (const [key, section] of sections) {
    endpointErrorCodes[key] = sectionCodes(key, section);
    endpointErrorStatuses[key] = sectionStatuses(key, section, endpointErrorCodes[key]);
  }
  for (const [key, entries] of Object.entries(NAME_ONLY_CODES)) {
    endpointErrorCodes[key] = entries.map((e) => e.code);
    endpointErrorStatuses[key] = Object.fromEntries(entries.map((e) => [e.code, ERROR_CODES[e.code as keyof typeof ERROR_CODES].status]));
  }
  return {
    about:
      'Facts of the interface specification that the test suite relies on, kept in the project so that `npm test` needs nothing beside the repository. `npm run check:spec` derives them again from the document and fails when they differ (`npm run check:spec -- --update` rewrites this file).',
    shownRoutes: shownRoutes(spec),
    nameOnlyRoutes: nameOnlyRoutes(spec),
    endpointErrorCodes,
    endpointErrorStatuses,
  };
}
