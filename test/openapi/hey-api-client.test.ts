/**
 * A second generator on the document: `@hey-api/openapi-ts` with its fetch client, its SDK and
 * its zod plugin (zod 4) writes a client into a temporary folder, as a team outside this SDK
 * would. Only the signature and the token wiring are written by hand (`hey-api-client-source.ts`);
 * every call goes through the generated functions, whose zod schemas check each request before it
 * is sent and each success answer when it arrives. Error answers are checked against the
 * generated `zError` / `zRateLimitedError`, with their `X-Request-Id` (and `X-Idempotent-Replay`
 * on a replayed failure).
 *
 * Then the generated request schemas are held to the spec: each invalid value the spec rules out
 * is refused, and its valid neighbour accepted (a refusal that cannot fail proves nothing).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';
import { CLIENT_SOURCE, type FlowOutcome } from './hey-api-client-source.js';
import { generateHeyApiClient, type GeneratedClient } from './hey-api-generate.js';
import { REQUEST_CASES } from './request-cases.js';

let sandbox: Sandbox;
let server: SandboxServer;
let generated: GeneratedClient;
let dir: string;

beforeAll(async () => {
  sandbox = createSandbox();
  server = await sandbox.listen();
  generated = await generateHeyApiClient();
  dir = generated.dir;
  writeFileSync(path.join(dir, 'client.ts'), CLIENT_SOURCE);
});

afterAll(async () => {
  await server?.close();
  generated?.dispose();
});

describe('a client generated with @hey-api/openapi-ts (fetch client, SDK, zod)', () => {
  it('compiles, the hand-written part against the generated types', () => {
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      skipLibCheck: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const where = d.file && at ? `${path.relative(dir, d.file.fileName)}:${at.line + 1}: ` : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
    expect(diagnostics).toEqual([]);
  });

  it('runs the sandbox flow with every answer validated: token, faucet, member, deposit, withdrawal, errors by code, two report pages', async () => {
    const seeded = await fetch(`${server.url}/__sandbox/reports`, { method: 'POST', body: JSON.stringify({ count: 3, status: 'ready' }) });
    expect(seeded.status).toBe(201);
    const client = (await import(pathToFileURL(path.join(dir, 'client.ts')).href)) as {
      run(
        baseUrl: string,
        creds: { clientId: string; apiKey: string; signingKey: string },
        member: string,
        unconfigureAgreement: () => void,
      ): Promise<FlowOutcome>;
    };
    const out = await client.run(server.url, sandbox.credentials, 'ext-hey-api', () => sandbox.state.setAgreement(null));

    // Every success answer passed the generated response schema, every error the generated
    // error schema, and every answer carried its X-Request-Id.
    expect(out.invalid).toEqual([]);
    expect(out.successes).toBeGreaterThanOrEqual(8);
    expect(out.steps).toMatchObject({
      token: 200,
      faucet: 200,
      member: 201,
      deposit: 201,
      withdrawal: 201,
      agreement: 200,
      balances: 200,
      reportsFirst: 200,
      reportsSecond: 200,
    });
    expect(out.errors).toEqual([
      { step: 'insufficient', status: 400, code: 'insufficient_balance', replay: null },
      { step: 'replayed', status: 400, code: 'insufficient_balance', replay: 'true' },
      { step: 'unknownMember', status: 404, code: 'member_not_found', replay: null },
      { step: 'badCredentials', status: 401, code: 'invalid_credentials', replay: null },
      { step: 'agreementMissing', status: 503, code: 'service_unavailable', replay: null },
    ]);
    expect(out.reportIds[0]).toHaveLength(2);
    expect(out.reportIds[1]).toHaveLength(1);
    expect(new Set(out.reportIds.flat()).size).toBe(3);
    // The request schemas ran before sending: a negative amount never left the client.
    expect(out.refusedBeforeSending).toBe(true);
    expect(sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/withdrawals').map((r) => r.code ?? r.status)).toEqual([
      201,
      'insufficient_balance',
      'insufficient_balance',
    ]);
    console.log(`hey-api: ${out.successes} success answers and ${out.errors.length} error answers validated`);
  });

  it('its zod refuses each invalid request value the spec rules out, and accepts the valid neighbour', async () => {
    const zod = await generated.zod();
    const wrong: string[] = [];
    for (const c of REQUEST_CASES) {
      const schema = zod[c.schema];
      if (!schema) throw new Error(`no ${c.schema} in the generated zod`);
      if (!schema.safeParse(c.valid).success) wrong.push(`${c.name}: the valid neighbour is refused`);
      if (schema.safeParse(c.invalid).success) wrong.push(`${c.name}: the invalid value is accepted`);
    }
    expect(wrong).toEqual([]);
    expect(REQUEST_CASES.length).toBeGreaterThanOrEqual(20);
    console.log(`hey-api zod: ${REQUEST_CASES.length} invalid requests refused, each valid neighbour accepted`);
  });
});
