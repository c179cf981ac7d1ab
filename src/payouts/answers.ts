/**
 * What an answer to a debit, confirm or fail means for the payout: read from the error's class and
 * `code`, never its message. Everything not definitely an answer is "unknown": the same key is
 * sent again later, and a definite answer comes back as a replay.
 */
import { ApiError } from '../core/errors/api-error.js';

/** How one call of the workflow ended. */
export type Answer =
  /** A 2xx: it executed. */
  | { readonly kind: 'done'; readonly body: unknown }
  /** A definite business refusal, stored under the key: nothing moved. */
  | { readonly kind: 'refused'; readonly code: string; readonly status: number }
  /** The key was used with another body (`idempotency_key_reused`). */
  | { readonly kind: 'key_reused'; readonly code: string }
  /** Not known: no answer, a 5xx, in progress, rate limited, credentials to repair. The same key goes again. */
  | { readonly kind: 'unknown'; readonly detail: string };

/** Codes that are definite refusals only by their status: 400 and 404 answers of the catalogue. */
function definite(err: ApiError): boolean {
  if (err.status !== 400 && err.status !== 404) return false;
  return err.retryClass === 'new_key' || err.retryClass === 'never';
}

/** What an error of a workflow call means. */
export function readFailure(err: unknown): Answer {
  if (err instanceof ApiError) return readApiError(err as ApiError);
  return { kind: 'unknown', detail: err instanceof Error ? err.name : 'a non-error value' };
}

function readApiError(err: ApiError): Answer {
  {
    if (err.code === 'idempotency_key_reused') return { kind: 'key_reused', code: err.code };
    if (definite(err)) return { kind: 'refused', code: err.code, status: err.status };
    return {
      kind: 'unknown',
      detail: `${err.code} (HTTP ${err.status})${err.requestId === undefined ? '' : ` request_id ${err.requestId}`}`,
    };
  }
  return { kind: 'unknown', detail: err instanceof Error ? err.name : 'a non-error value' };
}

/** A call's promise as an {@link Answer} (never rejects). */
export async function answerOf(call: () => PromiseLike<unknown>): Promise<Answer> {
  try {
    return { kind: 'done', body: await call() };
  } catch (err) {
    return readFailure(err);
  }
}
