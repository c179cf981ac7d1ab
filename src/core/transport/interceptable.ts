import { activeInterception } from '../platform/interception.js';
import type { Transport, TransportRequest, TransportResponse } from '../transport.js';

/** Where the Node transport says, once, that an active interceptor cannot see its requests. */
export type InterceptionReport = (message: string) => void;

/**
 * The Node transport without a transport named: undici's dispatch, except while a test's request
 * interceptor (msw's `setupServer`) is active, when each attempt goes through the global `fetch`
 * that msw patched, so that its handlers answer and its `onUnhandledRequest` policy applies.
 * Decided per attempt: msw may start listening after the client was created, and stop.
 */
export class InterceptableTransport implements Transport {
  readonly #direct: Transport;
  readonly #intercepted: Transport;
  readonly #report: InterceptionReport;
  #reported = false;

  constructor(direct: Transport, intercepted: Transport, report: InterceptionReport) {
    this.#direct = direct;
    this.#intercepted = intercepted;
    this.#report = report;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    const interception = activeInterception();
    if (interception === undefined) return this.#direct.send(req);
    if (interception === 'fetch') return this.#intercepted.send(req);
    if (!this.#reported) {
      this.#reported = true;
      this.#report(
        `a request interceptor of node:http alone (@mswjs/interceptors without its fetch interceptor) is active; it sees neither fetch nor undici, so this client's requests to ${req.origin} go to the network. Apply msw's fetch interceptor too (setupServer from msw/node does).`,
      );
    }
    return this.#direct.send(req);
  }

  async close(): Promise<void> {
    await Promise.all([this.#direct.close(), this.#intercepted.close()]);
  }
}

/**
 * The Node transport when undici was asked for (`transport: 'undici'` or a `dispatcher`): always
 * undici, as asked; if a test's interceptor is active at an attempt, which cannot see undici's
 * dispatch, it says so once instead of letting the requests go to the network unremarked.
 */
export class UninterceptedTransport implements Transport {
  readonly #inner: Transport;
  readonly #report: InterceptionReport;
  #reported = false;

  constructor(inner: Transport, report: InterceptionReport) {
    this.#inner = inner;
    this.#report = report;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    if (!this.#reported && activeInterception() !== undefined) {
      this.#reported = true;
      this.#report(
        `a request interceptor (msw) is active, but this client sends through undici's dispatch (the dispatcher or transport: 'undici' option), which msw does not see: its requests to ${req.origin} go to the network. Leave transport and dispatcher unset to let msw answer them.`,
      );
    }
    return this.#inner.send(req);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
