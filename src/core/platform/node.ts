/**
 * The Node build's runtime choices. `tsup.config.ts` builds a second copy of the SDK for Bun,
 * Deno, workerd and edge runtimes (export conditions `bun`, `deno`, `workerd`, `worker`,
 * `edge-light`, and platform-neutral bundlers) with `web.ts` in place of this module, so that
 * build never mentions undici.
 */
import type { Transport } from '../transport.js';
import { FetchTransport } from '../transport/fetch.js';
import { InterceptableTransport, UninterceptedTransport, type InterceptionReport } from '../transport/interceptable.js';
import { UndiciTransport } from '../transport/undici.js';
import { wantsFetch, type TransportChoice } from './choice.js';

/**
 * undici by default (pooled keep-alive dispatch, the fastest path on Node: `npm run bench`),
 * loaded on the first call. Where undici cannot be loaded (a bundle deployed without
 * `node_modules`), Node's own `fetch`, unless undici was asked for by name or by a dispatcher.
 * While a test's request interceptor (msw) is active, the default sends through the global
 * `fetch` it patched; undici asked for by name stays undici, and `report` says once that msw
 * cannot see it.
 */
export function createTransport(choice: TransportChoice, report: InterceptionReport = () => undefined): Transport {
  if (wantsFetch(choice)) return new FetchTransport(choice.fetch);
  if (choice.transport === 'undici' || choice.dispatcher !== undefined) {
    return new UninterceptedTransport(new UndiciTransport(choice.dispatcher), report);
  }
  return new InterceptableTransport(new UndiciTransport(undefined, () => new FetchTransport()), new FetchTransport(), report);
}
