import { activeInterception } from './interception.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';
import { AttemptRefusedError, InterceptorUnsupportedError } from './transport.js';

/** Where the Node transport says, once, that an active interceptor cannot see its requests. */
export type InterceptionReport = (message: string) => void;

/**
 * The Node transport: undici's dispatch (`direct`), except while a test's request interceptor
 * (msw's `setupServer`) is active, when each attempt goes through `intercepted`, the global
 * `fetch` that msw patched, so that its handlers answer and its `onUnhandledRequest` policy
 * applies. Decided per attempt: msw may start listening after the client was created, and stop.
 * With the option that named undici in place of `intercepted`, every attempt stays on undici,
 * and an active interceptor, which cannot see it, is reported once instead of going unremarked.
 */
export class InterceptableTransport implements Transport {
  readonly #direct: Transport;
  readonly #intercepted: Transport | undefined;
  /** The option that named undici (`dispatcher`, `transport: 'undici'`), when one did. */
  readonly #named: string | undefined;
  readonly #report: InterceptionReport;
  #reported = false;

  constructor(direct: Transport, intercepted: Transport | string, report: InterceptionReport) {
    this.#direct = direct;
    if (typeof intercepted === 'string') this.#named = intercepted;
    else this.#intercepted = intercepted;
    this.#report = report;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    const interception = activeInterception();
    if (interception === undefined) return this.#direct.send(req);
    if (interception === 'fetch' && this.#intercepted !== undefined)
      return this.#intercepted.send(req).then(refusedByInterceptor, failedInInterceptor);
    if (!this.#reported) {
      this.#reported = true;
      this.#report(
        this.#named !== undefined
          ? `msw (a request interceptor) is active, but this client sends through undici (option ${this.#named}), which msw does not see: its requests to ${req.origin} go to the network. Leave it unset in tests.`
          : `an interceptor of node:http alone is active (not msw's fetch interceptor), which sees neither fetch nor undici: this client's requests to ${req.origin} go to the network. Use setupServer from msw/node.`,
      );
    }
    return this.#direct.send(req);
  }

  async close(): Promise<void> {
    await Promise.all([this.#direct.close(), this.#intercepted?.close()]);
  }
}

/**
 * msw's answer when its `onUnhandledRequest` callback (or a handler) throws: a 500 whose body is
 * the thrown error (`{ name, message, stack }`), not the service's envelope (`type`, `code`,
 * `request_id`). The request never left the test process: refused, not sent, never retried, with
 * msw's words as the cause.
 */
function refusedByInterceptor(res: TransportResponse): TransportResponse {
  if (res.status !== 500) return res;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return res;
  }
  const b = body as Record<string, unknown> | null;
  if (b === null || typeof b !== 'object' || typeof b['name'] !== 'string' || typeof b['message'] !== 'string') return res;
  if ('code' in b || 'type' in b || 'request_id' in b) return res;
  const thrown = new Error(`${b['message']} (thrown inside the request interceptor: msw answered 500 "Unhandled Exception")`);
  thrown.name = b['name'];
  throw new AttemptRefusedError(thrown);
}

/**
 * An interceptor that cannot run on this runtime (msw 3 on Node 20: `Promise.withResolvers is not
 * a function`) fails inside `fetch` before anything is sent: refused, never retried, said plainly.
 */
function failedInInterceptor(err: unknown): never {
  const inner = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  if (inner instanceof TypeError && /withResolvers is not a function/.test(inner.message)) {
    const unsupported = new Error(`msw 3 needs Node.js 22.12 or later (${inner.message}), and msw 2 runs on older Node.js lines`, {
      cause: err,
    });
    throw new InterceptorUnsupportedError(unsupported);
  }
  throw err;
}
