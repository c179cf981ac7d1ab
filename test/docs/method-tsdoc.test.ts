/**
 * Every public resource method's TSDoc states the facts of its endpoint, so they cannot drift:
 * the route, the scope, member-scoped or merchant account, the idempotency key, whether it moves
 * funds, and the error codes the spec lists for it.
 *
 * Sources of truth: the endpoint table (`src/facts/endpoints.ts`) for scope and flags, and the
 * spec's endpoint sections for error codes (the table does not carry them), kept in
 * `test/fixtures/spec-facts.json` and checked against the document by `npm run check:spec`. The wording checked
 * (one phrasing each, as the resources already use it):
 *
 * - the route in backticks: `` `POST /v1/withdrawals` ``;
 * - ``Scope `withdrawals:write` `` equal to the table's scope, or `Scope: not shown`;
 * - `Member-scoped` or `Merchant account` (never both), or `Member optional` for an endpoint callable
 *   with and without a member (withdrawal confirm and fail);
 * - `Idempotency key required` / `Idempotency key (UUID v4) required` where the spec shows the
 *   endpoint, `Idempotency key sent (assumed ...)` for endpoints referenced by name only, or
 *   `no idempotency key`;
 * - `Moves funds` or `moves no funds`;
 * - one paragraph starting `Errors:` that names every code of the endpoint's spec section, or
 *   starts `Errors: not shown` (name-only endpoints, plus the codes the spec ties to them elsewhere).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import * as Endpoints from '../../src/facts/endpoints.js';
import { ENDPOINTS, INTERNAL_ENDPOINT_IDS, SHOWN_ENDPOINTS } from '../../src/facts/endpoints.js';

const RESOURCES_DIR = fileURLToPath(new URL('../../src/resources/', import.meta.url));
const route = (e: { method: string; path: string }): string => `${e.method} ${e.path}`;

// ---------------------------------------------------------------------------------------------
// Facts per endpoint: the table's flags, plus the error codes the spec lists (kept in the
// project as a fixture; `npm run check:spec` checks it against the document).
// ---------------------------------------------------------------------------------------------

const SPEC_FACTS = JSON.parse(readFileSync(new URL('../fixtures/spec-facts.json', import.meta.url), 'utf8')) as {
  shownRoutes: string[];
  endpointErrorCodes: Record<string, string[]>;
};
const SHOWN_ROUTES = new Set(SPEC_FACTS.shownRoutes);

/** Exported endpoint constants of `src/facts/endpoints.ts`, by name. */
const ENDPOINT_CONSTANTS = new Map<string, EndpointDescriptor>();
for (const [name, value] of Object.entries(Endpoints) as [string, unknown][]) {
  if (ENDPOINTS.includes(value as EndpointDescriptor)) ENDPOINT_CONSTANTS.set(name, value as EndpointDescriptor);
}

interface EndpointFacts {
  readonly endpoint: EndpointDescriptor;
  /** The spec gives the endpoint's shape (its own section); otherwise it is referenced by name only. */
  readonly shown: boolean;
  /** Codes the TSDoc's `Errors:` paragraph must name. */
  readonly codes: readonly string[];
}

function factsOf(endpoint: EndpointDescriptor): EndpointFacts {
  const key = route(endpoint);
  return { endpoint, shown: SHOWN_ROUTES.has(key), codes: SPEC_FACTS.endpointErrorCodes[key] ?? [] };
}

// ---------------------------------------------------------------------------------------------
// The checker: parses a resource source file, collects public methods, checks their TSDoc.
// ---------------------------------------------------------------------------------------------

interface MethodDoc {
  readonly label: string;
  /** The TSDoc text without comment markers (empty when there is none). */
  readonly doc: string;
  readonly endpoints: readonly EndpointDescriptor[];
}

/** The `/** ... *\/` comment right before a node, without its markers and leading asterisks. */
function tsdocOf(node: ts.Node, text: string): string {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const last = ranges.filter((r) => text.startsWith('/**', r.pos)).at(-1);
  if (last === undefined) return '';
  return text
    .slice(last.pos + 3, last.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** Names bound by `import { A, B as C } from '.../facts/endpoints.js'` and `import * as E`. */
function endpointImports(file: ts.SourceFile): { named: Map<string, string>; namespaces: Set<string> } {
  const named = new Map<string, string>();
  const namespaces = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/\/facts\/endpoints(\.js)?$/.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined) continue;
    if (ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    else for (const el of bindings.elements) named.set(el.name.text, (el.propertyName ?? el.name).text);
  }
  return { named, namespaces };
}

type Member = ts.MethodDeclaration | ts.GetAccessorDeclaration;

function isPublic(member: Member): boolean {
  if (ts.isPrivateIdentifier(member.name)) return false;
  const flags = ts.getCombinedModifierFlags(member);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** Public methods (and endpoint-calling getters) of every exported class in one source file. */
function collectMethods(fileName: string, text: string): MethodDoc[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const imports = endpointImports(file);
  const constantOf = (node: ts.Node): string | undefined => {
    if (ts.isIdentifier(node) && imports.named.has(node.text)) return imports.named.get(node.text);
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && imports.namespaces.has(node.expression.text))
      return node.name.text;
    return undefined;
  };
  const out: MethodDoc[] = [];
  for (const cls of file.statements.filter(ts.isClassDeclaration)) {
    if (cls.name === undefined || (ts.getCombinedModifierFlags(cls) & ts.ModifierFlags.Export) === 0) continue;
    const members = cls.members.filter(
      (m): m is Member => (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m)) && m.body !== undefined,
    );
    // Endpoints each member references directly, and the sibling methods it calls (`this.x(...)`).
    const direct = new Map<string, Set<string>>();
    const calls = new Map<string, Set<string>>();
    for (const member of members) {
      const name = member.name.getText(file);
      const found = new Set<string>();
      const siblings = new Set<string>();
      const visit = (node: ts.Node): void => {
        const constant = constantOf(node);
        // Other exports of the table (lists, ids) are not endpoints.
        if (constant !== undefined && ENDPOINT_CONSTANTS.has(constant)) found.add(constant);
        if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword)
          siblings.add(node.name.getText(file));
        ts.forEachChild(node, visit);
      };
      visit(member.body!);
      direct.set(name, found);
      calls.set(name, siblings);
    }
    const reach = (name: string, seen = new Set<string>()): Set<string> => {
      const all = new Set(direct.get(name));
      seen.add(name);
      for (const sibling of calls.get(name) ?? [])
        if (direct.has(sibling) && !seen.has(sibling)) for (const c of reach(sibling, seen)) all.add(c);
      return all;
    };
    for (const member of members) {
      if (!isPublic(member)) continue;
      const name = member.name.getText(file);
      const doc = tsdocOf(member, text);
      if (/(^|\s)@internal\b/.test(doc)) continue;
      const endpoints = [...reach(name)].map((c) => ENDPOINT_CONSTANTS.get(c)!);
      // Getters that only hand out sub-namespaces are not methods of the API.
      if (ts.isGetAccessorDeclaration(member) && endpoints.length === 0) continue;
      out.push({ label: `${cls.name.text}.${name}`, doc, endpoints });
    }
  }
  return out;
}

/** The description: the TSDoc before its first block tag (`@param`, `@returns`, ...). */
function descriptionOf(doc: string): string {
  const lines = doc.split('\n');
  const firstTag = lines.findIndex((l) => /^@\w+/.test(l));
  return (firstTag === -1 ? lines : lines.slice(0, firstTag)).join('\n').trim();
}

const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** What one method's TSDoc gets wrong about one endpoint (empty when nothing). */
function endpointDocProblems(doc: string, facts: EndpointFacts): string[] {
  const { endpoint: e, shown, codes } = facts;
  const description = descriptionOf(doc);
  const text = flat(description);
  const problems: string[] = [];

  if (!text.includes(`\`${route(e)}\``)) problems.push(`names its route \`${route(e)}\``);

  const named = [...text.matchAll(/\bScope `([^`]+)`/g)].map((m) => m[1]!);
  const notShown = /\bScope: not shown\b/.test(text);
  if (e.scope === undefined) {
    if (!notShown) problems.push('says "Scope: not shown" (the spec names no scope)');
    if (named.length > 0) problems.push(`names no scope, not ${named.join(', ')}`);
  } else {
    if (!named.includes(e.scope)) problems.push(`says "Scope \`${e.scope}\`"`);
    if (notShown || named.some((s) => s !== e.scope)) problems.push(`names only the scope \`${e.scope}\``);
  }

  const member = /\bMember-scoped\b/.test(text);
  const merchant = /\bMerchant account\b/.test(text);
  const optional = /\bMember optional\b/.test(text);
  if (e.memberOptional === true) {
    if (!optional || member || merchant) problems.push('says "Member optional" (and neither "Member-scoped" nor "Merchant account")');
  } else {
    if (e.memberScoped && (!member || merchant || optional)) problems.push('says "Member-scoped" (and not "Merchant account")');
    if (!e.memberScoped && (!merchant || member || optional)) problems.push('says "Merchant account" (and not "Member-scoped")');
  }

  const required = /\bIdempotency key (\(UUID v4\) )?required\b/.test(text);
  const assumed = /\bIdempotency key sent \(assumed\b/.test(text);
  const noKey = /\bno idempotency key\b/i.test(text);
  if (e.sendsKey) {
    if (shown && !required) problems.push('says "Idempotency key required" (as the spec does)');
    if (!shown && !assumed) problems.push('says "Idempotency key sent (assumed: ...)" (the spec does not show it)');
    if (noKey) problems.push('does not say "no idempotency key"');
  } else {
    if (!noKey) problems.push('says "no idempotency key"');
    if (required || assumed || /\bIdempotency key sent\b/.test(text)) problems.push('does not claim an idempotency key');
  }

  const moves = /\bMoves funds\b/.test(text);
  const movesNone = /\bmoves no funds\b/i.test(text);
  if (e.journaled && (!moves || movesNone)) problems.push('says "Moves funds"');
  if (!e.journaled && (!movesNone || moves)) problems.push('says "moves no funds" (and not "Moves funds")');

  const errors = description
    .split(/\n\s*\n/)
    .map(flat)
    .filter((p) => p.startsWith('Errors:'));
  if (errors.length !== 1) {
    problems.push(`has exactly one paragraph starting "Errors:" (found ${errors.length})`);
  } else {
    const body = errors[0]!.slice('Errors:'.length).trim();
    const saysNotShown = /^not shown\b/.test(body);
    if (shown && codes.length > 0 && saysNotShown) problems.push('lists the spec\'s codes instead of "Errors: not shown"');
    if ((!shown || codes.length === 0) && !saysNotShown) problems.push('says "Errors: not shown" (the spec lists no codes for it)');
    const missing = codes.filter((c) => !body.includes(`\`${c}\``));
    if (missing.length > 0) problems.push(`names in "Errors:" the spec's ${missing.map((c) => `\`${c}\``).join(', ')}`);
  }
  return problems;
}

/** Every problem of one resource source file, as `Class.method: should ...` lines. */
function checkSource(fileName: string, text: string): string[] {
  const problems: string[] = [];
  for (const method of collectMethods(fileName, text)) {
    const summary = flat(descriptionOf(method.doc));
    if (summary === '') {
      problems.push(`${method.label}: has no TSDoc summary`);
      continue;
    }
    for (const endpoint of method.endpoints) {
      for (const p of endpointDocProblems(method.doc, factsOf(endpoint))) problems.push(`${method.label} (${route(endpoint)}): ${p}`);
    }
  }
  return problems;
}

function resourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return resourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------------------------

const FILES = resourceFiles(RESOURCES_DIR).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const METHODS = FILES.flatMap((f) => collectMethods(f.path, f.text));

describe('resource method TSDoc', () => {
  it('finds the public methods of src/resources and every callable endpoint among them', () => {
    const callable = ENDPOINTS.filter((e) => !INTERNAL_ENDPOINT_IDS.includes(e.id)).map(route);
    const covered = new Set(METHODS.flatMap((m) => m.endpoints.map(route)));
    expect(callable.filter((r) => !covered.has(r))).toEqual([]);
    expect(METHODS.length).toBeGreaterThanOrEqual(callable.length);
  });

  it('states route, scope, member scope, idempotency key, funds and errors for every method', () => {
    const problems = FILES.flatMap((f) => checkSource(f.path.slice(RESOURCES_DIR.length), f.text));
    expect(problems).toEqual([]);
  });

  it('has a TSDoc summary on every public method that calls no endpoint', () => {
    expect(METHODS.filter((m) => m.endpoints.length === 0 && flat(descriptionOf(m.doc)) === '').map((m) => m.label)).toEqual([]);
  });
});

describe('the facts the docs are checked against', () => {
  it('give error codes for every shown endpoint except the token exchange, and only for endpoints of the table', () => {
    for (const e of SHOWN_ENDPOINTS) {
      expect(SHOWN_ROUTES.has(route(e))).toBe(true);
      if (!INTERNAL_ENDPOINT_IDS.includes(e.id)) expect(`${route(e)}: ${factsOf(e).codes.length > 0}`).toBe(`${route(e)}: true`);
    }
    const routes = new Set(ENDPOINTS.map(route));
    expect(Object.keys(SPEC_FACTS.endpointErrorCodes).filter((r) => !routes.has(r))).toEqual([]);
  });
});

describe('the checker reports drift', () => {
  const path = join(RESOURCES_DIR, 'member/withdrawals.ts');
  const original = readFileSync(path, 'utf8');
  const mutate = (from: string, to: string): string[] => {
    expect(original).toContain(from);
    return checkSource('member/withdrawals.ts', original.replace(from, to));
  };

  it('accepts the real file', () => {
    expect(checkSource('member/withdrawals.ts', original)).toEqual([]);
  });

  it('reports a missing scope statement', () => {
    expect(mutate('Scope `withdrawals:write`. ', '')).toEqual([
      'MemberWithdrawals.create (POST /v1/withdrawals): says "Scope `withdrawals:write`"',
    ]);
  });

  it('reports a wrong scope, member scope, key, funds statement or a missing error code', () => {
    expect(mutate('Scope `withdrawals:write`.', 'Scope `withdrawals:read`.').join('\n')).toMatch(/create .*Scope `withdrawals:write`/);
    expect(mutate('`withdrawals:write`. Member-scoped.', '`withdrawals:write`. Merchant account.').join('\n')).toMatch(
      /create .*Member-scoped/,
    );
    expect(mutate('Idempotency key required', 'No idempotency key').join('\n')).toMatch(/create .*Idempotency key required/);
    expect(
      mutate(
        'protection: there is no business reference). Moves funds.',
        'protection: there is no business reference). Moves no funds.',
      ).join('\n'),
    ).toMatch(/create .*Moves funds/);
    expect(mutate('`limit_exceeded`\n', '\n').join('\n')).toMatch(/create .*`limit_exceeded`/);
  });

  it('reports a member-optional endpoint documented as member-scoped only', () => {
    expect(mutate('Member optional: sent here with `x-on-behalf-of` for this member', 'Member-scoped: for this member')).toEqual([
      'MemberWithdrawals.confirm (POST /v1/withdrawals/{id}/confirm): says "Member optional" (and neither "Member-scoped" nor "Merchant account")',
    ]);
  });

  it('reports a name-only endpoint documented as if the spec showed it', () => {
    const source = `
      import { MEMBERS_SUSPEND } from '../facts/endpoints.js';
      export class Example {
        /**
         * Suspends a member (\`POST /v1/members/{id}/suspend\`).
         *
         * Scope: not shown. Merchant account. No idempotency key. Moves no funds.
         *
         * Errors: 404 \`not_found\`.
         */
        suspend(): unknown { return this.#call(MEMBERS_SUSPEND); }
        /** @param x - ignored. */
        helper(x: number): number { return x; }
        #call(e: unknown): unknown { return e; }
        private hidden(): void {}
        /** @internal */
        internalOnly(): void {}
      }`;
    expect(checkSource('example.ts', source)).toEqual([
      'Example.suspend (POST /v1/members/{id}/suspend): says "Errors: not shown" (the spec lists no codes for it)',
      'Example.helper: has no TSDoc summary',
    ]);
  });
});
