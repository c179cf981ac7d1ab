import type { MerchantClient } from '../client.js';
import { ApiError } from '../core/errors/api-error.js';
import type { BalanceRow } from '../schemas/balances.js';
import type { ReconcileReadFailure } from './reconcile-types.js';

/** What one balance read of a member gave. */
export type MemberRead =
  | { readonly kind: 'rows'; readonly rows: readonly BalanceRow[] }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'failed'; readonly failure: ReconcileReadFailure };

/**
 * Reads one member's balance rows. A 404 `member_not_found` and any other failure are answers,
 * not errors, so that one member does not stop the run; an abort of `signal` rejects.
 */
export async function readMember(client: MerchantClient, member: string, signal: AbortSignal | undefined): Promise<MemberRead> {
  try {
    const rows = await client.member(member).balances.list(signal === undefined ? undefined : { signal });
    return { kind: 'rows', rows };
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    if (err instanceof ApiError && err.status === 404 && err.code === 'member_not_found') return { kind: 'not_found' };
    return { kind: 'failed', failure: failureOf(member, err) };
  }
}

function failureOf(member: string, err: unknown): ReconcileReadFailure {
  const api: ApiError | undefined = err instanceof ApiError ? (err as ApiError) : undefined;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { member, code: api?.code ?? null, status: api?.status ?? null, message };
}

/**
 * Runs `work` over `items` with at most `concurrency` at once, results in the order of `items`.
 * The first rejection (an abort) stops the workers taking more and rejects.
 */
export async function mapBounded<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, () => worker());
  await Promise.all(workers);
  return results;
}
