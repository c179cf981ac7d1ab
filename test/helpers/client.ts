import { MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { API_KEY, CLIENT_ID, SIGNING_KEY } from './wire-server.js';

/** A client for the wire server with fast backoff (tests never wait seconds for a retry). */
export function wireClient(url: string, options: Partial<MerchantClientOptions> = {}): MerchantClient {
  return new MerchantClient({
    baseUrl: url,
    clientId: CLIENT_ID,
    apiKey: API_KEY,
    signingKey: SIGNING_KEY,
    backoff: { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
}

/** What a call that must fail rejected with; a call that succeeds fails the test. */
export function failure(call: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(call).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
}
