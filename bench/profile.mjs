// Profiling helper (not part of `npm run bench`): drives one contender against the bench server so
// that `node --cpu-prof` sees only that contender's client-side work.
//
//   node --cpu-prof --cpu-prof-dir=bench/.cache/prof bench/profile.mjs sdk [calls] [concurrency]
//   node bench/profile.mjs summary bench/.cache/prof/<file>.cpuprofile   # self time by function
//
// contenders: minimal, raw, sdk, fetch, openai, stripe, pages (SDK pagination), hand-pages.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as C from './contenders.mjs';

const [what = 'sdk', arg1, arg2] = process.argv.slice(2);

if (what === 'summary') {
  const prof = JSON.parse(readFileSync(arg1, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|bench)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(arg2 ?? 40));
  for (const [k, v] of top) console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  process.exit(0);
}

const calls = Number(arg1 ?? 20_000);
const concurrency = Number(arg2 ?? 1);
const server = fork(join(C.BENCH_DIR, 'server.mjs'), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const { port } = await new Promise((r) => server.once('message', r));
const origin = `http://127.0.0.1:${port}`;
const token = await C.fetchToken(origin);
try {
  if (what === 'pages' || what === 'hand-pages') {
    const sdk = await C.importSdk();
    const client = new sdk.MerchantClient({ baseUrl: origin, ...C.CREDENTIALS });
    const t0 = performance.now();
    let n = 0;
    if (what === 'pages') {
      for await (const r of client.reports.list({ limit: 100 })) if (r.id && ++n >= calls * 100) break;
    } else {
      const d = new C.undici.Agent({ connections: 1 });
      let cursor;
      for (let p = 0; p < calls; p++) {
        const res = await C.undici.request(`${origin}/v1/reports?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          dispatcher: d,
          headers: { 'x-auth-token': `Bearer ${token}` },
        });
        const page = JSON.parse(await res.body.text());
        for (const r of page.data) if (r.id) n++;
        cursor = page.next_cursor;
      }
    }
    console.log(`${what}: ${n} items in ${(performance.now() - t0).toFixed(0)} ms`);
    await client.close();
  } else {
    const make = {
      minimal: () => C.minimalClient(origin, token),
      raw: () => C.rawClient(origin, token),
      fetch: () => C.fetchClient(origin, token),
      openai: () => C.openaiClient(origin, token),
      stripe: () => C.stripeClient(origin, token),
      sdk: async () => C.sdkClient(await C.importSdk(), origin),
    }[what];
    const c = await make();
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < calls) await c.call();
      }),
    );
    const ms = performance.now() - t0;
    console.log(
      `${what}: ${calls} calls at c=${concurrency} in ${ms.toFixed(0)} ms (${((ms * 1000) / calls).toFixed(1)} µs/call, ${Math.round(calls / (ms / 1000))} req/s)`,
    );
    await c.close();
  }
} finally {
  server.kill();
}
