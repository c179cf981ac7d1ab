// Cold start: a fresh process imports the SDK, exchanges a token and makes its first signed POST,
// against the same with the hand-written minimal client (undici + node:crypto). The whole cost on
// a function instance that serves one request. Fresh processes alternate (SDK, minimal, minimal,
// SDK, ...) and ratios are taken pair by pair, so drift on the machine hits both alike.
//
// Used by suite.mjs (`npm run bench`), and alone: `npm run bench:cold-start [-- pairs [sdk.js]]`
// (default 11 pairs; it starts server.mjs itself and measures dist/index.js, so run
// `npm run build` first, or the ESM entry given, e.g. another build's, for a before and after).
//
// Per process: `ms`, from the script's first line to the parsed answer (Node's own start-up
// excluded, as in the import rows); `cpuMs`, the process's user + system CPU time at that point
// (start-up included); `wallMs`, spawn to exit, as seen by this process.
import { execFileSync, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(BENCH_DIR, '..');
const CREDENTIALS = {
  clientId: 'cli_bench',
  apiKey: 'key_bench_0123456789abcdef',
  signingKey: 'sk_bench_0123456789abcdef0123456789abcdef',
};
const MEMBER = 'ext-member-42';
const WITHDRAWAL = { asset: 'USDT', amount: '25.50', to_address: 'TXYZ1234567890abcdefghijklmnopqrstu' };

const report = `const c0=process.cpuUsage();process.stdout.write(JSON.stringify({ms:Number(process.hrtime.bigint()-t)/1e6,cpuMs:(c0.user+c0.system)/1000}));`;

/** The two scripts, each run with `node --input-type=module -e`. */
function scripts(origin, sdkEntry) {
  const undiciUrl = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('undici')).href;
  const creds = JSON.stringify(CREDENTIALS);
  return {
    sdk: `const t=process.hrtime.bigint();const {MerchantClient}=await import(${JSON.stringify(sdkEntry)});
      const c=new MerchantClient({baseUrl:${JSON.stringify(origin)},...${creds}});
      await c.member(${JSON.stringify(MEMBER)}).withdrawals.create(${JSON.stringify(WITHDRAWAL)});
      ${report}await c.close();`,
    minimal: `const t=process.hrtime.bigint();const {request}=await import(${JSON.stringify(undiciUrl)});const {createHash,createHmac,randomUUID}=await import('node:crypto');
      const o=${JSON.stringify(origin)};const k=${creds};
      const tr=await request(o+'/v1/connect/token',{method:'POST',headers:{'x-client-id':k.clientId,'x-api-key':k.apiKey}});const token=(await tr.body.json()).auth_token;
      const body=Buffer.from(JSON.stringify(${JSON.stringify(WITHDRAWAL)}));const ts=String(Math.floor(Date.now()/1000));const nonce=randomUUID();
      const sig=createHmac('sha256',k.signingKey).update('POST\\n/v1/withdrawals\\n'+ts+'\\n'+nonce+'\\n'+createHash('sha256').update(body).digest('hex')).digest('base64');
      const r=await request(o+'/v1/withdrawals',{method:'POST',body,headers:{'content-type':'application/json','x-auth-token':'Bearer '+token,'x-on-behalf-of':${JSON.stringify(MEMBER)},'x-idempotency-key':randomUUID(),'x-timestamp':ts,'x-nonce':nonce,'x-signature':sig}});
      JSON.parse(await r.body.text());${report}`,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = (s.length - 1) / 2;
  return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2;
};
const round = (x, d = 1) => Number(x.toFixed(d));

function runOnce(script) {
  const t0 = performance.now();
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: BENCH_DIR, encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  return { ...JSON.parse(out), wallMs };
}

/**
 * `pairs` alternating pairs of fresh processes (after one pair of warm-up, not counted), the
 * SDK from `sdkEntry` (a file URL of dist/index.js). Medians of each measure, and the medians of
 * the pair-by-pair ratios SDK / minimal.
 */
export function measureColdStart({ origin, sdkEntry, pairs }) {
  const s = scripts(origin, sdkEntry);
  const runs = { sdk: [], minimal: [] };
  for (let r = -1; r < pairs; r++) {
    const order = r % 2 === 0 ? ['sdk', 'minimal'] : ['minimal', 'sdk'];
    for (const name of order) {
      const m = runOnce(s[name]);
      if (r >= 0) runs[name].push(m);
    }
  }
  const med = (name, key) => round(median(runs[name].map((m) => m[key])));
  const ratio = (key) => round(median(runs.sdk.map((m, i) => m[key] / runs.minimal[i][key])), 3);
  return {
    pairs,
    sdkMs: med('sdk', 'ms'),
    minimalMs: med('minimal', 'ms'),
    ratio: ratio('ms'),
    sdkCpuMs: med('sdk', 'cpuMs'),
    minimalCpuMs: med('minimal', 'cpuMs'),
    cpuRatio: ratio('cpuMs'),
    sdkProcessMs: med('sdk', 'wallMs'),
    minimalProcessMs: med('minimal', 'wallMs'),
    processRatio: ratio('wallMs'),
    note: 'fresh processes, alternating; ms: ESM import + token exchange + first signed POST (Node start-up excluded); CPU and process wall include start-up',
  };
}

// Alone: `node bench/cold-start.mjs [pairs]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pairs = Number(process.argv[2] ?? 11);
  const server = fork(join(BENCH_DIR, 'server.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve, reject) => {
    server.once('message', resolve);
    server.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  try {
    const sdkEntry = pathToFileURL(process.argv[3] ?? join(ROOT, 'dist', 'index.js')).href;
    const r = measureColdStart({ origin: `http://127.0.0.1:${port}`, sdkEntry, pairs });
    console.log(`cold start, ${r.pairs} alternating pairs of fresh processes (medians):`);
    console.log(`  import + token + first POST: SDK ${r.sdkMs} ms, minimal ${r.minimalMs} ms, ratio ${r.ratio}`);
    console.log(`  process CPU (user + system): SDK ${r.sdkCpuMs} ms, minimal ${r.minimalCpuMs} ms, ratio ${r.cpuRatio}`);
    console.log(`  whole process, spawn to exit: SDK ${r.sdkProcessMs} ms, minimal ${r.minimalProcessMs} ms, ratio ${r.processRatio}`);
  } finally {
    server.kill();
  }
}
