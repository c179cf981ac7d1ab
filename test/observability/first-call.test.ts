/**
 * Telemetry in time for the first call of a fresh process (a serverless cold start, a short
 * script): with a tracer provider registered before it, the call and its token exchange are
 * traced; with nothing registered, `@opentelemetry/api` is never imported by the SDK. Each case
 * runs in a child process of its own (fixtures/first-call.ts), so no earlier test has loaded it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER, startWireServer, type WireServer } from '../helpers/wire-server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/first-call.ts', import.meta.url));
const run = promisify(execFile);

interface ChildReport {
  readonly order: string;
  readonly spans: ReadonlyArray<{ readonly name: string }>;
  /** The modules that imported `@opentelemetry/api`, in order. */
  readonly importers: readonly string[];
}

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
  server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
});
afterAll(async () => {
  await server.close();
});

async function firstCall(mode: string): Promise<ChildReport> {
  // A hang guard, not a speed bound: a loaded machine may take long to start the child.
  const { stdout } = await run(process.execPath, ['--import', 'tsx', FIXTURE, mode, server.url], { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildReport;
}

const sdkImports = (r: ChildReport): string[] => r.importers.filter((from) => from.endsWith('/src/core/telemetry/otel-api.ts'));

describe('the first call of a fresh process', () => {
  it.each([
    ['registered before the client is built', 'before-client'],
    ['registered after the client is built, before its first call', 'before-call'],
  ])('a tracer provider %s: the call and its token exchange are traced', async (_name, mode) => {
    const report = await firstCall(mode);
    expect(report.order).toBe('wdr_1');
    expect(report.spans.map((s) => s.name).sort()).toEqual(['connect.token', 'member.withdrawals.create']);
    expect(sdkImports(report)).toHaveLength(1);
  });

  it('nothing registered: no span, and the SDK never imports @opentelemetry/api', async () => {
    const report = await firstCall('none');
    expect(report.order).toBe('wdr_1');
    expect(report.spans).toEqual([]);
    // The fixture's own import (after the call) was seen: the hook was listening.
    expect(report.importers).toHaveLength(1);
    expect(sdkImports(report)).toEqual([]);
  });
});
