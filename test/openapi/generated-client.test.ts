/**
 * A client generated from the OpenAPI document, as a team outside this SDK would build one:
 * `openapi-typescript` turns the document the sandbox server serves (`/__sandbox/openapi.json`)
 * into types in a temporary folder, `openapi-fetch` makes the calls, and only two things are
 * written by hand, as the document says they must be: the signature (node:crypto, the rule of
 * `x-signing`) and the token exchange wiring. Nothing of the SDK is imported by that client; the
 * sandbox server over HTTP is its counterpart.
 *
 * The client is type-checked against the generated types (a body field, a header or a response
 * field the document got wrong fails to compile), then run: token, faucet, a member, a deposit,
 * a withdrawal, an `insufficient_balance` read by its `code`, and two pages of reports.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the generated client's `run()` reports (its own types are checked where it is compiled). */
interface Outcome {
  expiresAt: number;
  faucet: { status: number; credited?: string; journal?: string };
  member: { status: number };
  deposit: { status: number };
  withdrawal: { status: number; id?: string; state?: string; amount?: string; ledgerScale?: number };
  refused: { status: number; code?: string; requestId?: string; header: string | null };
  balance?: Record<string, unknown>;
  reports: Array<{ ids: string[]; statuses: string[]; hasMore?: boolean }>;
}

/** The generated client module. */
interface GeneratedClient {
  run(baseUrl: string, creds: { clientId: string; apiKey: string; signingKey: string }, member: string): Promise<Outcome>;
}

/**
 * The hand-written part, written next to the generated `schema.d.ts`. Everything else comes from
 * the document: paths, methods, parameter names and places, body and response types.
 */
const CLIENT_SOURCE = String.raw`
import { createHash, createHmac, randomUUID } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export interface Credentials { clientId: string; apiKey: string; signingKey: string }
type ApiError = components['schemas']['Error'] | components['schemas']['RateLimitedError'];

/**
 * By hand: the signature of every write (the document's x-signing rule), except the token exchange,
 * which the document marks unsigned (spec: the signing key is never used for it).
 */
function signing(signingKey: string): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (request.method === 'GET' || request.method === 'HEAD' || schemaPath === '/v1/connect/token') return request;
      const body = new Uint8Array(await request.clone().arrayBuffer());
      const url = new URL(request.url);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const digest = createHash('sha256').update(body).digest('hex');
      const text = [request.method, url.pathname + url.search, timestamp, nonce, digest].join('\n');
      request.headers.set('x-timestamp', timestamp);
      request.headers.set('x-nonce', nonce);
      request.headers.set('x-signature', createHmac('sha256', signingKey).update(text).digest('base64'));
      return request;
    },
  };
}

/** By hand: the token from the exchange, on every other call. */
function bearer(token: () => string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (schemaPath !== '/v1/connect/token') request.headers.set('x-auth-token', 'Bearer ' + token());
      return request;
    },
  };
}

/** The code of an error body, in either of its two documented shapes. */
export function codeOf(error: ApiError): string {
  return 'error' in error ? error.error.code : error.code;
}

/** Never run: calls the generated types must refuse, each one a rule of the document. */
export function refusedByTheTypes(client: Client<paths>): void {
  const body = { asset: 'USDT', amount: '1', to_address: 'T' };
  const both = { 'x-on-behalf-of': 'm', 'x-idempotency-key': randomUUID() };
  // @ts-expect-error an amount is a decimal string, never a number
  void client.POST('/v1/withdrawals', { params: { header: both }, body: { ...body, amount: 25 } });
  // @ts-expect-error a member-scoped endpoint needs x-on-behalf-of
  void client.POST('/v1/withdrawals', { params: { header: { 'x-idempotency-key': randomUUID() } }, body });
  // @ts-expect-error an endpoint that moves funds needs x-idempotency-key
  void client.POST('/v1/withdrawals', { params: { header: { 'x-on-behalf-of': 'm' } }, body });
  // @ts-expect-error the token exchange takes its credentials in headers
  void client.POST('/v1/connect/token', {});
}

export async function run(baseUrl: string, creds: Credentials, member: string) {
  let token = '';
  const client = createClient<paths>({ baseUrl });
  client.use(bearer(() => token), signing(creds.signingKey));
  const key = () => ({ 'x-idempotency-key': randomUUID() });

  // The token exchange (its wiring by hand: keep the token, send it on every call).
  const exchanged = await client.POST('/v1/connect/token', {
    params: { header: { 'x-client-id': creds.clientId, 'x-api-key': creds.apiKey } },
  });
  if (!exchanged.data) throw new Error('token exchange failed: ' + JSON.stringify(exchanged.error));
  token = exchanged.data.auth_token;
  const expiresAt: number = exchanged.data.expired_at;

  const faucet = await client.POST('/v1/sandbox/faucet', { params: { header: key() }, body: { asset: 'USDT', amount: '1000' } });
  const created = await client.POST('/v1/members', { params: { header: key() }, body: { external_member_id: member } });
  const onBehalf = { 'x-on-behalf-of': member };
  const deposit = await client.POST('/v1/deposits', {
    params: { header: { ...onBehalf, ...key() } },
    body: { asset: 'USDT', amount: '100' },
  });
  const withdrawal = await client.POST('/v1/withdrawals', {
    params: { header: { ...onBehalf, ...key() } },
    body: { asset: 'USDT', amount: '25.5', to_address: 'TQ7x1Vb9' },
  });
  const refused = await client.POST('/v1/withdrawals', {
    params: { header: { ...onBehalf, ...key() } },
    body: { asset: 'USDT', amount: '1000', to_address: 'TQ7x1Vb9' },
  });
  const balances = await client.GET('/v1/balances', { params: { header: onBehalf } });
  const firstPage = await client.GET('/v1/reports', { params: { query: { limit: 2 } } });
  const cursor = firstPage.data?.next_cursor ?? undefined;
  const secondPage = await client.GET('/v1/reports', { params: { query: { limit: 2, cursor } } });

  return {
    expiresAt,
    faucet: { status: faucet.response.status, credited: faucet.data?.credited, journal: faucet.data?.journal_id },
    member: { status: created.response.status },
    deposit: { status: deposit.response.status },
    withdrawal: {
      status: withdrawal.response.status,
      id: withdrawal.data?.id,
      state: withdrawal.data?.status,
      amount: withdrawal.data?.amount,
      ledgerScale: withdrawal.data?.ledger_scale,
    },
    refused: {
      status: refused.response.status,
      code: refused.error ? codeOf(refused.error) : undefined,
      requestId: refused.error && 'request_id' in refused.error ? refused.error.request_id : undefined,
      header: refused.response.headers.get('x-request-id'),
    },
    balance: balances.data?.data.find((row) => row.asset === 'USDT'),
    reports: [firstPage.data, secondPage.data].map((page) => ({
      ids: page?.data.map((r) => r.id) ?? [],
      statuses: page?.data.map((r) => r.status) ?? [],
      hasMore: page?.has_more,
    })),
  };
}
`;

let sandbox: Sandbox;
let server: SandboxServer;
let dir: string;

beforeAll(async () => {
  sandbox = createSandbox();
  server = await sandbox.listen();
  dir = mkdtempSync(path.join(tmpdir(), 'openapi-client-'));
  // The generated client resolves openapi-fetch and @types/node as an installed project would.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a client generated from the document with openapi-typescript and openapi-fetch', () => {
  let served: OpenAPI3;

  it('the sandbox serves the committed document at /__sandbox/openapi.json', async () => {
    const res = await fetch(`${server.url}/__sandbox/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    served = (await res.json()) as OpenAPI3;
    expect(served).toEqual(JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')));
  });

  it('generates types from it and the hand-written client compiles against them', async () => {
    const ast = await openapiTS(served, { silent: true });
    writeFileSync(path.join(dir, 'schema.d.ts'), astToString(ast));
    writeFileSync(path.join(dir, 'client.ts'), CLIENT_SOURCE);
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // fetch, Request and Headers come from @types/node, as in a Node project.
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      skipLibCheck: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const where = d.file && at ? `${path.basename(d.file.fileName)}:${at.line + 1}:${at.character + 1}: ` : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
    expect(diagnostics).toEqual([]);
  });

  it('runs against the sandbox server: token, faucet, member, withdrawal, insufficient_balance by code, report pages', async () => {
    // Three reports, so that two pages of two show the keyset cursor.
    const seeded = await fetch(`${server.url}/__sandbox/reports`, { method: 'POST', body: JSON.stringify({ count: 3, status: 'ready' }) });
    expect(seeded.status).toBe(201);
    const client = (await import(pathToFileURL(path.join(dir, 'client.ts')).href)) as GeneratedClient;
    const before = sandbox.requests.length;
    const out = await client.run(server.url, sandbox.credentials, 'ext-openapi');

    expect(out.expiresAt).toBeGreaterThan(0);
    expect(out.faucet).toMatchObject({ status: 200, credited: '1000.000000' });
    expect(out.faucet.journal).toMatch(/^jrn_/);
    expect(out.member.status).toBeGreaterThanOrEqual(200);
    expect(out.member.status).toBeLessThan(300);
    expect(out.deposit.status).toBe(201);
    expect(out.withdrawal).toMatchObject({ status: 201, state: 'locked', amount: '25.500000', ledgerScale: 6 });
    expect(out.withdrawal.id).toMatch(/^wdr_/);
    expect(out.refused).toMatchObject({ status: 400, code: 'insufficient_balance' });
    expect(out.refused.requestId).toBe(out.refused.header);
    expect(out.balance).toMatchObject({ asset: 'USDT', available: '74.500000', withdrawing: '25.500000' });
    expect(out.reports[0]!.ids).toHaveLength(2);
    expect(out.reports[0]!.hasMore).toBe(true);
    expect(out.reports[1]!.ids).toHaveLength(1);
    expect(out.reports[1]!.hasMore).toBe(false);
    expect(new Set([...out.reports[0]!.ids, ...out.reports[1]!.ids]).size).toBe(3);

    // What went over the wire: every call answered by the service, not refused at its door, and
    // the one debit executed once.
    const log = sandbox.requests.slice(before);
    expect(log.filter((r) => (r.status ?? 0) === 401)).toEqual([]);
    expect(log.filter((r) => r.method === 'POST' && r.path === '/v1/withdrawals').map((r) => r.code ?? r.status)).toEqual([
      201,
      'insufficient_balance',
    ]);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
  });
});
