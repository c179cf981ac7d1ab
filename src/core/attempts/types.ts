import type { CallState } from '../errors/call-state.js';
import type { Logger } from '../telemetry/logger.js';
import type { BackoffSettings } from './retry-policy.js';
import type { TokenManager } from '../credentials/token-manager.js';
import type { TransportResponse } from '../transport/transport.js';

/** Client settings the attempt loop runs on. */
export interface AttemptSettings {
  readonly origin: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly userAgent: string;
  readonly backoff: BackoffSettings;
  readonly logger: Logger | undefined;
}

/** How a call authenticates: a bearer token, or the credentials of the token exchange itself. */
export type Auth =
  | { readonly kind: 'token'; readonly tokens: TokenManager }
  | { readonly kind: 'credentials'; readonly clientId: string; readonly apiKey: string };

/** What reading a 2xx response may use: the call's state, and the redaction of server text. */
export interface ReadContext {
  readonly state: CallState;
  /** Masks every secret the client holds or this call sent. */
  readonly redact: (text: string) => string;
}

/** Turns the 2xx response into the call's result (parse, validate); throws what it cannot read. */
export type ResultReader<R> = (response: TransportResponse, context: ReadContext) => R;
