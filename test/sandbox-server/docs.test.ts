/**
 * docs/sandbox-server.md is the admin API's reference: its route table lists exactly the routes
 * the sandbox serves, and each listed route answers over a real socket (not the admin API's own
 * "no admin route" 404 nor a 405).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminRoutes } from '../../src/testing/admin/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { servedWorlds } from '../testing/served.js';

const serve = servedWorlds();
const doc = readFileSync(new URL('../../docs/sandbox-server.md', import.meta.url), 'utf8');
const documented = [...doc.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/__sandbox\/[^`]*)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);

describe('docs/sandbox-server.md', () => {
  it('lists every admin route, and no other', () => {
    const sandbox = createSandbox();
    const served = adminRoutes({ sandbox, memberAssets: () => [], reset: () => undefined }).map((r) => `${r.method} ${r.path}`);
    expect(documented.length).toBeGreaterThan(20);
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('every documented route answers on a served sandbox', async () => {
    const { server } = await serve();
    for (const route of documented) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/:[a-z]+/g, 'x');
      const res = await fetch(`${server.url}${path}`, { method, ...(method === 'GET' ? {} : { body: '{}' }) });
      const text = await res.text();
      expect(res.status, route).not.toBe(405);
      expect(text, route).not.toContain('no admin route');
    }
  });

  it('the options table names every flag of --help', async () => {
    const { USAGE } = await import('../../src/testing/cli/args.js');
    const flags = [...USAGE.matchAll(/^\s+(?:-h, )?(--[a-z-]+)/gm)].map((m) => m[1]!);
    expect(flags).toEqual([
      '--host',
      '--port',
      '--client-id',
      '--api-key',
      '--signing-key',
      '--webhook-secret',
      '--admin-token',
      '--signature-skew-ms',
      '--seed',
      '--help',
    ]);
    for (const flag of flags) expect(doc).toContain(`\`${flag}`);
  });
});
