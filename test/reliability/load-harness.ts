/**
 * A burst of mixed calls through one client against the simulator in server mode (real sockets),
 * with the simulator's quotas tightened, recording every attempt the client puts on the wire.
 *
 * The simulator's rate-limit window is 60 s of its own clock and its 429 says `Retry-After: 60`.
 * How its clock moves (`time`):
 *
 * - `frozen` (load.test.ts, without the limiter): the clock stands still, so the window never
 *   slides: in each bucket exactly the first `quota` attempts get through, whatever the
 *   machine's speed. An undici interceptor on the client's dispatcher translates `Retry-After`
 *   from simulator seconds into real seconds (60 / `scale`), as a proxy in front of a fast clock
 *   would, so that the client's pauses are short.
 * - `driven` (load.test.ts, with the limiter): the simulator and the `MemoryRateLimiter` share a
 *   manual clock (window 60 s), which moves to the limiter's next wake-up only while no request
 *   it admitted is in flight. Admission, arrival and settlement of a request happen at one
 *   instant of that clock, so "never more than the quota in any window" holds at any speed. The
 *   clock starts 2 minutes behind the real one, which keeps the client's signing timestamps
 *   within the simulator's ±300 s through the few windows a burst spans.
 * - `warp` (the default; scripts/reliability-figures.ts): the clock runs `scale` times faster
 *   than real time and the limiter's window is 60 s / `scale` of real time. Realistic figures,
 *   but what they count depends on the machine's speed: not for assertions.
 *
 * Shared by `load.test.ts` and `scripts/reliability-figures.ts`.
 */
import { Agent, type Dispatcher } from 'undici';
import {
  ApiError,
  MemoryRateLimiter,
  MerchantClient,
  MerchantSdkError,
  type RateLimitBucket,
  type RequestLimiter,
} from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';
import { advanceWhenIdle, manualClock } from '../helpers/time.js';

/** The four buckets the burst exercises, with their tightened quotas per simulator minute. */
export type Quotas = Readonly<Record<RateLimitBucket, number>>;

export interface BurstOptions {
  /** Number of concurrent calls. */
  readonly calls: number;
  /** Simulator quotas per 60 simulator seconds (the limiter, when on, gets the same). */
  readonly quotas: Quotas;
  /** Simulator seconds per real second: the warp's rate, and the factor `Retry-After` is divided by. */
  readonly scale: number;
  /** How the simulator's clock moves (see the top of this file). Default `warp`. */
  readonly time?: 'warp' | 'frozen' | 'driven';
  /** Install a MemoryRateLimiter with the same quotas and window. */
  readonly limiter: boolean;
  /** Connections of the client's pool (the default transport's is 64). */
  readonly pool: number;
  /** Inject a few server faults (502 after executing, HTML 502, 409 in progress, unknown code). */
  readonly faults?: boolean;
}

/** One attempt as the client's dispatcher saw it. */
interface WireEvent {
  readonly kind: 'dispatch' | 'end' | 'error';
  readonly call: number;
  readonly bucket: RateLimitBucket;
  /** Date.now() (ms), the clock the client's pause uses. */
  readonly at: number;
  readonly status?: number;
  /** Retry-After after translation, in real ms (429s only). */
  readonly retryAfterMs?: number;
}

export interface BurstFigures {
  readonly calls: number;
  readonly succeeded: number;
  /** Failed calls by error class and code, e.g. `ApiError:rate_limited`. */
  readonly failures: Readonly<Record<string, number>>;
  /** Calls that failed with something other than an SDK error class (must be 0). */
  readonly untypedFailures: number;
  /** Attempts put on the wire (token exchange excluded). */
  readonly attempts: number;
  /** 429 responses seen. */
  readonly rateLimited: number;
  readonly rateLimitedByBucket: Readonly<Record<RateLimitBucket, number>>;
  /** Attempts per bucket. */
  readonly attemptsByBucket: Readonly<Record<RateLimitBucket, number>>;
  /** Largest number of attempts one call made. */
  readonly maxAttemptsPerCall: number;
  /** Responses with a 401 (clock or token trouble: must be 0 for the warp to be sound). */
  readonly unauthorized: number;
  /** Attempts sent into a bucket while a 429 received earlier still paused it (must be 0). */
  readonly sentWhilePaused: number;
  /** Largest number of server-side connections seen at any dispatch or response. */
  readonly maxServerConnections: number;
  readonly pool: number;
  /** Successful withdrawal calls, and withdrawal effects the simulator executed. */
  readonly withdrawalsSucceeded: number;
  readonly withdrawalEffects: number;
  /** Idempotency keys with more than one executed withdrawal (must be 0). */
  readonly duplicateEffects: number;
  /** Successful withdrawal calls whose key executed no withdrawal (must be 0). */
  readonly successesWithoutEffect: number;
  readonly realMs: number;
  readonly simulatorSeconds: number;
  /** Per bucket, the most attempts that reached the simulator within any 60 s of its clock. */
  readonly maxInAnyWindow: Readonly<Record<RateLimitBucket, number>>;
}

type Kind = 'balances' | 'assets' | 'withdrawal' | 'faucet' | 'member' | 'deposit';
const BUCKET_OF: Record<Kind, RateLimitBucket> = {
  balances: 'reads',
  assets: 'reads',
  withdrawal: 'orders',
  faucet: 'orders',
  member: 'members_write',
  deposit: 'deposits',
};
/** 40% reads, 35% orders, 15% members_write, 10% deposits. */
const MIX: readonly Kind[] = [
  'balances',
  'withdrawal',
  'assets',
  'faucet',
  'balances',
  'withdrawal',
  'member',
  'assets',
  'withdrawal',
  'deposit',
  'balances',
  'faucet',
  'member',
  'assets',
  'withdrawal',
  'deposit',
  'balances',
  'withdrawal',
  'member',
  'assets',
];

function zeroBuckets(): Record<RateLimitBucket, number> {
  return { reads: 0, orders: 0, members_write: 0, deposits: 0 };
}

export function kindOf(i: number): Kind {
  return MIX[i % MIX.length]!;
}

/** Divides a quota set for smaller runs, keeping the number of windows a run spans. */
export function scaleQuotas(full: Quotas, fullCalls: number, calls: number): Quotas {
  const f = calls / fullCalls;
  const q = (n: number): number => Math.max(2, Math.round(n * f));
  return { reads: q(full.reads), orders: q(full.orders), members_write: q(full.members_write), deposits: q(full.deposits) };
}

/** The full-size run of the reliability issue: 2,000 calls, orders 200 and reads 300 a minute. */
export const FULL_CALLS = 2000;
export const FULL_QUOTAS: Quotas = { reads: 300, orders: 200, members_write: 100, deposits: 60 };

function headerOf(headers: Dispatcher.DispatchOptions['headers'], name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  const record = headers as Record<string, unknown>;
  const v = record[name];
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return Array.isArray(v) ? v.join(', ') : undefined;
}

/**
 * An interceptor that records each attempt and translates `Retry-After` from simulator seconds
 * to real seconds. It sits under the SDK's transport, so what it records is exactly what the
 * SDK sent and received.
 */
function wireRecorder(scale: number, events: WireEvent[], sampleConnections: () => void): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const callHeader = headerOf(opts.headers, 'x-load-call');
    if (callHeader === undefined) return dispatch(opts, handler);
    const call = Number(callHeader);
    const bucket = BUCKET_OF[kindOf(call)];
    sampleConnections();
    events.push({ kind: 'dispatch', call, bucket, at: Date.now() });
    let status = 0;
    let retryAfterMs: number | undefined;
    const h = handler;
    return dispatch(opts, {
      onRequestStart: (controller, context) => h.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, statusCode, headers, socket) => h.onRequestUpgrade?.(controller, statusCode, headers, socket),
      onResponseStart: (controller, statusCode, headers, statusMessage) => {
        status = statusCode;
        const ra = headers['retry-after'];
        if (typeof ra === 'string' && /^\d+(\.\d+)?$/.test(ra)) {
          const real = Number(ra) / scale;
          retryAfterMs = real * 1000;
          headers = { ...headers, 'retry-after': String(real) };
        }
        return h.onResponseStart?.(controller, statusCode, headers, statusMessage);
      },
      onResponseData: (controller, chunk) => h.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => {
        sampleConnections();
        events.push({ kind: 'end', call, bucket, at: Date.now(), status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
        return h.onResponseEnd?.(controller, trailers);
      },
      onResponseError: (controller, err) => {
        events.push({ kind: 'error', call, bucket, at: Date.now() });
        return h.onResponseError?.(controller, err);
      },
    });
  };
}

/**
 * Counts attempts that entered the transport for a bucket while an earlier 429 of that bucket
 * still paused it: after a 429's response ended at `t` with Retry-After `r`, no later attempt of
 * the bucket may be dispatched before `t + r`. (The client pauses the bucket in the same turn
 * of the event loop in which the 429's body ends, so "later in the log" means "after the pause".)
 */
function countSentWhilePaused(events: readonly WireEvent[]): number {
  const pausedUntil = new Map<RateLimitBucket, number>();
  let violations = 0;
  for (const e of events) {
    if (e.kind === 'end' && e.status === 429 && e.retryAfterMs !== undefined) {
      pausedUntil.set(e.bucket, Math.max(pausedUntil.get(e.bucket) ?? 0, e.at + e.retryAfterMs));
    } else if (e.kind === 'dispatch' && e.at < (pausedUntil.get(e.bucket) ?? 0)) {
      violations++;
    }
  }
  return violations;
}

export interface BurstRun {
  readonly figures: BurstFigures;
  /** The client and simulator of the run, held weakly: both must be collectable afterwards. */
  readonly clientRef: WeakRef<MerchantClient>;
  readonly sandboxRef: WeakRef<Sandbox>;
}

/** Runs one burst and tears everything down (server, client, dispatcher). */
export async function runBurst(options: BurstOptions): Promise<BurstRun> {
  const time = options.time ?? 'warp';
  if (time === 'frozen' && options.limiter) throw new Error('a limiter cannot get through a window that never slides');
  const real = Date.now();
  const driven = time === 'driven' ? manualClock(real - 120_000) : undefined;
  const base = driven?.now() ?? real;
  const now = driven !== undefined ? () => driven.now() : time === 'frozen' ? () => base : () => base + (Date.now() - base) * options.scale;
  const sandbox: Sandbox = createSandbox({ quotas: { ...options.quotas }, now });
  const server: SandboxServer = await sandbox.listen();
  const events: WireEvent[] = [];
  let maxConnections = 0;
  const sample = (): void => {
    if (server.connections > maxConnections) maxConnections = server.connections;
  };
  const agent = new Agent({ connections: options.pool, keepAliveTimeout: 10_000 });
  const dispatcher = agent.compose(wireRecorder(options.scale, events, sample));
  let limiter: RequestLimiter | undefined;
  if (options.limiter && driven !== undefined) {
    const inner = new MemoryRateLimiter({ quotas: options.quotas, windowMs: 60_000, clock: driven });
    const buckets = Object.keys(options.quotas) as RateLimitBucket[];
    const driver = advanceWhenIdle(driven, () => buckets.every((b) => inner.usage(b).inFlight === 0));
    limiter = {
      acquire: (bucket, signal) => inner.acquire(bucket, signal),
      settle: (bucket) => {
        inner.settle(bucket);
        driver.poke();
      },
      pause: (bucket, ms) => inner.pause(bucket, ms),
    };
  } else if (options.limiter) {
    limiter = new MemoryRateLimiter({ quotas: options.quotas, windowMs: Math.round(60_000 / options.scale) });
  }
  const client = new MerchantClient({
    baseUrl: server.url,
    ...sandbox.credentials,
    dispatcher,
    backoff: { baseDelayMs: 5, inProgressDelayMs: 20, maxDelayMs: 100 },
    ...(limiter ? { limiter } : {}),
  });
  const members = Array.from({ length: 40 }, () => sandbox.state.seedMember({ balances: { USDT: { available: '1000000' } } }));
  if (options.faults) {
    sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 502, when: 'after' }, { times: 5 });
    sandbox.faults.inject({ method: 'GET', path: '/v1/assets' }, { kind: 'html', status: 502 }, { times: 5 });
    sandbox.faults.inject({ method: 'POST', path: '/v1/sandbox/faucet' }, { kind: 'in_progress' }, { times: 3 });
    sandbox.faults.inject({ method: 'GET', path: '/v1/balances' }, { kind: 'unknown_code' }, { times: 3 });
  }

  const withdrawalKeys = new Set<string>();
  let withdrawalsSucceeded = 0;
  const started = performance.now();
  const call = (i: number): Promise<unknown> => {
    const member = client.member(members[i % members.length]!.id);
    const opts = { headers: { 'x-load-call': String(i) } };
    switch (kindOf(i)) {
      case 'balances':
        return member.balances.list(opts);
      case 'assets':
        return Promise.resolve(client.assets.list({}, opts)).then((page) => page.data);
      case 'withdrawal':
        return member.withdrawals
          .create({ asset: 'USDT', amount: '1', to_address: `T-load-${i}` }, opts)
          .withResponse()
          .then((r) => {
            withdrawalsSucceeded++;
            withdrawalKeys.add(r.response.idempotencyKey!);
          });
      case 'faucet':
        return client.sandbox.faucet({ asset: 'USDT', amount: '1' }, opts);
      case 'member':
        return client.members.create({ external_member_id: `load-${i}` }, opts);
      case 'deposit':
        return member.deposits.declare({ asset: 'USDT', amount: '1' }, opts);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: options.calls }, (_, i) => call(i)));
  const realMs = Math.round(performance.now() - started);
  const simulatorSeconds = Math.round((sandbox.clock.now() - base) / 1000);
  const maxInAnyWindow = zeroBuckets();
  for (const bucket of Object.keys(maxInAnyWindow) as RateLimitBucket[]) {
    const at = sandbox.requests
      .filter((r) => r.headers['x-load-call'] !== undefined && BUCKET_OF[kindOf(Number(r.headers['x-load-call']))] === bucket)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[i]! - at[j]! >= 60_000) j++;
      maxInAnyWindow[bucket] = Math.max(maxInAnyWindow[bucket], i - j + 1);
    }
  }

  const failures: Record<string, number> = {};
  let untypedFailures = 0;
  let succeeded = 0;
  for (const s of settled) {
    if (s.status === 'fulfilled') {
      succeeded++;
      continue;
    }
    const e = s.reason as unknown;
    if (!(e instanceof MerchantSdkError)) untypedFailures++;
    const label = e instanceof ApiError ? `ApiError:${e.code}` : e instanceof Error ? e.name : typeof e;
    failures[label] = (failures[label] ?? 0) + 1;
  }
  const rateLimitedByBucket = zeroBuckets();
  const attemptsByBucket = zeroBuckets();
  const perCall = new Map<number, number>();
  let unauthorized = 0;
  for (const e of events) {
    if (e.kind === 'dispatch') {
      attemptsByBucket[e.bucket]++;
      perCall.set(e.call, (perCall.get(e.call) ?? 0) + 1);
    } else if (e.kind === 'end' && e.status === 429) rateLimitedByBucket[e.bucket]++;
    else if (e.kind === 'end' && e.status === 401) unauthorized++;
  }
  const effects = sandbox.state.effects.filter((e) => e.kind === 'withdrawal.create');
  const perKey = new Map<string, number>();
  for (const e of effects) perKey.set(e.idempotencyKey ?? '', (perKey.get(e.idempotencyKey ?? '') ?? 0) + 1);
  const missing = [...withdrawalKeys].filter((k) => perKey.get(k) !== 1).length;

  await client.close();
  await agent.close();
  await server.close();

  const figures: BurstFigures = {
    calls: options.calls,
    succeeded,
    failures,
    untypedFailures,
    attempts: events.filter((e) => e.kind === 'dispatch').length,
    rateLimited: Object.values(rateLimitedByBucket).reduce((a, b) => a + b, 0),
    rateLimitedByBucket,
    attemptsByBucket,
    maxAttemptsPerCall: Math.max(0, ...perCall.values()),
    unauthorized,
    sentWhilePaused: countSentWhilePaused(events),
    maxServerConnections: maxConnections,
    pool: options.pool,
    withdrawalsSucceeded,
    withdrawalEffects: effects.length,
    duplicateEffects: [...perKey.values()].filter((n) => n > 1).length,
    successesWithoutEffect: missing,
    realMs,
    simulatorSeconds,
    maxInAnyWindow,
  };
  return { figures, clientRef: new WeakRef(client), sandboxRef: new WeakRef(sandbox) };
}
