/** What the simulator's request pipeline works on, and the log entry it writes per request. */
import type { KeyRing } from './auth.js';
import type { InternalClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import type { SignatureDiagnosis } from './diagnosis-types.js';
import type { IdempotencyStore } from './idempotency.js';
import type { RateLimiter } from './rate-limit.js';
import type { Router } from './router.js';
import type { NonceStore } from './signature.js';
import type { Store } from './store.js';
import type { InternalWebhooks } from './webhook-types.js';

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
  /** HTTP status answered; 0 when the connection was dropped (`reset` fault); absent until answered. */
  status?: number;
  /** The error code answered, when the answer was an error envelope. */
  code?: string;
  /** True when the answer was an idempotent replay (`x-idempotent-replay: true`). */
  replay?: boolean;
  /** Why the signature was refused (`invalid_signature`, `timestamp_out_of_range`, `nonce_reused`). */
  diagnosis?: SignatureDiagnosis;
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
  /** The caller's IP for requests that carry none (msw and in-process modes). */
  clientIp: () => string;
}
