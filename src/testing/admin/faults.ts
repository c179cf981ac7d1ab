/** `POST /__sandbox/faults`: a fault as JSON, checked into the registry's `Fault` and `FaultMatch`. */
import type { Fault, FaultMatch, InjectedFault } from '../faults.js';
import { AdminError, numberField } from './http.js';

type Json = Record<string, unknown>;

function oneOf<T extends string | number>(body: Json, key: string, allowed: readonly T[], fallback?: T): T {
  const v = body[key] ?? fallback;
  if (!allowed.includes(v as T)) throw new AdminError(400, `${key} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function optionalString(body: Json, key: string): string | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new AdminError(400, `${key} must be a string`);
  return v;
}

/** Drops undefined fields, so the fault reads as the typed API would build it. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The fault of a JSON body's `fault` object. */
export function faultOf(f: Json): Fault {
  switch (f['kind']) {
    case 'status':
      return defined({
        kind: 'status',
        status: oneOf(f, 'status', [500, 502, 504]),
        code: optionalString(f, 'code'),
        when: oneOf(f, 'when', ['before', 'after'], 'before'),
      });
    case 'rate_limited':
      return {
        kind: 'rate_limited',
        retryAfter: numberField(f, 'retryAfter') ?? 60,
        shape: oneOf(f, 'shape', ['flat', 'wrapped'], 'flat'),
      };
    case 'html':
      return { kind: 'html', status: oneOf(f, 'status', [502, 503, 504], 502) };
    case 'delay': {
      const ms = numberField(f, 'ms');
      if (ms === undefined || ms < 0) throw new AdminError(400, 'ms must be a number of milliseconds');
      return { kind: 'delay', ms };
    }
    case 'unknown_code':
      return defined({ kind: 'unknown_code', status: numberField(f, 'status'), code: optionalString(f, 'code') });
    case 'garble':
      return defined({ kind: 'garble', body: optionalString(f, 'body'), status: numberField(f, 'status') });
    case 'in_progress':
    case 'reset':
    case 'hang':
    case 'timestamp_skew':
      return { kind: f['kind'] };
    default:
      throw new AdminError(
        400,
        'fault.kind must be one of status, in_progress, rate_limited, html, reset, delay, hang, unknown_code, timestamp_skew, garble',
      );
  }
}

/** The match of a JSON body's `match` object: `path` (exact or template) and an optional method. */
export function matchOf(m: Json): FaultMatch {
  const path = m['path'];
  if (typeof path !== 'string' || !path.startsWith('/')) throw new AdminError(400, 'match.path must be a path such as /v1/withdrawals');
  const method = optionalString(m, 'method');
  return method === undefined ? { path } : { method, path };
}

/** `times`: a count, or `"always"`. */
export function timesOf(body: Json): number {
  if (body['times'] === 'always') return Infinity;
  const n = numberField(body, 'times') ?? 1;
  if (!Number.isInteger(n) || n < 1) throw new AdminError(400, 'times must be a positive integer or "always"');
  return n;
}

/**
 * Lets go every request held by a fault armed over HTTP, including faults already used up (which
 * `faults.list()` no longer shows), so no caller stays held after a clear or a reset.
 */
export function releaseArmed(armed: InjectedFault[]): void {
  for (const f of armed.splice(0)) void f.release();
}

/** A registered fault as JSON (`Infinity` reads as `"always"`); `holding` counts the requests a `hang` holds now. */
export function faultView(f: InjectedFault): Json {
  const remaining = Number.isFinite(f.remaining) ? f.remaining : 'always';
  return { match: f.match, fault: f.fault, remaining, hits: f.hits, holding: f.holding };
}
