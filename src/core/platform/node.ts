/**
 * The Node build's runtime choices. `tsup.config.ts` builds a second copy of the SDK for Bun,
 * Deno, workerd and edge runtimes (export conditions `bun`, `deno`, `workerd`, `worker`,
 * `edge-light`, and platform-neutral bundlers) with `web.ts` in place of this module, so that
 * build never mentions undici.
 */
import type { Transport } from '../transport/transport.js';
import { FetchTransport } from '../transport/fetch.js';
import { InterceptableTransport, type InterceptionReport } from '../transport/interceptable.js';
import { UndiciTransport } from '../transport/undici.js';
import { wantsFetch, type TransportChoice } from './choice.js';
import { envVar } from './runtime.js';

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
  // undici named by the caller: no fetch fallback, and no detour through msw's fetch.
  const named = choice.dispatcher !== undefined ? 'dispatcher' : choice.transport === 'undici' ? "transport: 'undici'" : undefined;
  const undici = new UndiciTransport(choice.dispatcher, named !== undefined ? undefined : () => new FetchTransport());
  return new InterceptableTransport(undici, named ?? new FetchTransport(), report);
}

/**
 * A warning when the environment names a proxy for the service's scheme (`HTTPS_PROXY`,
 * `HTTP_PROXY`, either case) that the client will not use: undici's default dispatch reads no
 * proxy variable, so without this the calls would bypass the proxy unremarked. Undefined when a
 * transport or dispatcher was chosen, or when `NO_PROXY` covers the host.
 */
export function proxyEnvNotice(
  choice: TransportChoice,
  origin: string,
  env: (name: string) => string | undefined = envVar,
): string | undefined {
  if (choice.transport !== undefined || choice.dispatcher !== undefined || choice.fetch !== undefined) return undefined;
  const url = new URL(origin);
  const name = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const proxy = env(name) ?? env(name.toLowerCase());
  if (proxy === undefined || proxy.trim() === '' || bypassed(url.hostname, env('NO_PROXY') ?? env('no_proxy'))) return undefined;
  return `${name} is set, but the client's default transport does not read it: its requests to ${origin} go direct. Pass dispatcher: new EnvHttpProxyAgent() (from undici) to send them through the proxy (see docs/going-to-production.md, Proxies).`;
}

/** Whether `NO_PROXY` (comma- or space-separated hosts, `.suffix`, `*.suffix` or `*`) covers `host`. */
function bypassed(host: string, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  return noProxy
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase().replace(/:\d+$/, ''))
    .some((entry) => {
      if (entry === '*') return true;
      const bare = entry.replace(/^\*?\./, '');
      return bare !== '' && (host === bare || host.endsWith(`.${bare}`));
    });
}
