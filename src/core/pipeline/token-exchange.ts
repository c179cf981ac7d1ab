import { TOKEN_EXCHANGE } from '../../facts/endpoints.js';
import type { AttemptRunner } from '../attempts/runner.js';
import { prepareCall } from '../call/call.js';
import { readResult } from '../attempts/result.js';
import type { StoredToken } from '../credentials/token-store.js';

/** What one token exchange needs. */
export interface TokenExchangeSettings {
  readonly clientId: string;
  readonly apiKey: string;
  readonly basePath: string;
}

/**
 * One token exchange (`POST /v1/connect/token`, credentials in `x-client-id` and `x-api-key`, and
 * nothing else: no signature, since "the signing_key is never used for token exchange") through
 * the same attempt loop as every call, with the token endpoint's own quota bucket.
 * `signal` aborts it (the token manager does when every caller waiting for it has aborted);
 * `parent` is the trace context of the call that caused it, whose child its span is.
 */
export async function exchangeToken(
  runner: AttemptRunner,
  settings: TokenExchangeSettings,
  signal: AbortSignal,
  parent?: unknown,
): Promise<StoredToken> {
  const call = { ...prepareCall(TOKEN_EXCHANGE, { options: { signal } }, settings.basePath, 'token'), traceParent: parent };
  const auth = { kind: 'credentials', clientId: settings.clientId, apiKey: settings.apiKey } as const;
  // Always validated: a token the SDK cannot read is of no use.
  const { data } = await runner.run(call, auth, TOKEN_EXCHANGE, (response, context) => readResult(TOKEN_EXCHANGE, response, context, true));
  return { token: data.auth_token, expiresAt: data.expired_at };
}
