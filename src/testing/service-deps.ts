/** What the simulator's request pipeline works on, and the log entry it writes per request. */
import type { KeyRing } from './auth.js';
import type { InternalClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import type { IdempotencyStore } from './idempotency.js';
import type { RateLimiter } from './rate-limit.js';
import type { Router } from './router.js';
import type { NonceStore } from './signature.js';
import type { Store } from './store.js';
import type { InternalWebhooks } from './webhooks.js';

/** One received request, for assertions (`sandbox.requests`). */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path with query, exactly as received. */
  path: string;
  /** Lowercased headers. */
  headers: Record<string, string>;
  /** Body as UTF-8 text. */
  body: string;
  /** Sandbox time (ms) when received. */
  at: number;
  /** The `X-Request-Id` given to it. */
  requestId: string;
}

/** Everything the pipeline needs. */
export interface ServiceDeps {
  store: Store;
  clock: InternalClock;
  keys: KeyRing;
  nonces: NonceStore;
  idempotency: IdempotencyStore;
  limiter: RateLimiter;
  faults: FaultRegistry;
  router: Router;
  webhooks: InternalWebhooks;
  requests: RecordedRequest[];
  scopes: () => readonly string[];
}
