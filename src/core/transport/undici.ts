/** The Node transport: undici loaded on the first call, one pooled `Agent`, and its close. */
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';
import type { UndiciDispatcher } from './dispatcher.js';
import { dispatchAttempt } from './undici-dispatch.js';

/** undici's exports, as far as the transport uses them. */
export type UndiciModule = Pick<typeof Undici, 'Agent' | 'buildConnector'>;

/**
 * How long `close()` lets the pooled agent close on its own, once no attempt of the SDK's is
 * running any more, before it destroys what undici still holds: requests the SDK gave up on
 * (a timeout while they were queued for a connection) and connections still being made (a
 * stalled TLS handshake would otherwise hold the process until undici's 10 s connect timeout).
 */
const CLOSE_GRACE_MS = 1000;

/** An error for what `close()` destroys. */
function closedError(): Error {
  return new Error('The client was closed.');
}

/** A socket as `close()` needs it. */
interface Destroyable {
  destroy(error?: Error): void;
}

/**
 * Sockets of the pooled agent that are still connecting (TCP or TLS handshake): undici's
 * `destroy()` cannot reach them, so `close()` destroys them itself.
 */
class Connecting {
  readonly #sockets = new Set<Destroyable>();

  /** undici's own connector (the agent's defaults), each socket tracked until it is connected or failed. */
  connector(undici: UndiciModule): Undici.buildConnector.connector {
    // undici's connector returns the socket it makes (its type says void).
    const connect = undici.buildConnector({}) as (...args: Parameters<Undici.buildConnector.connector>) => Destroyable | undefined;
    return (options, callback) => {
      let connected = false;
      const socket = connect(options, (...args) => {
        connected = true;
        if (socket !== undefined) this.#sockets.delete(socket);
        callback(...args);
      });
      if (socket !== undefined && !connected) this.#sockets.add(socket);
    };
  }

  destroyAll(): void {
    for (const socket of this.#sockets) socket.destroy(closedError());
    this.#sockets.clear();
  }
}

let undiciModule: Promise<UndiciModule | undefined> | undefined;

/**
 * undici's `Agent` and what it loads, without the rest of undici (fetch, WebSocket, caches,
 * mocks, and Node's own bundled undici, which undici's index wakes up): a third of the index's
 * load time, which is most of a cold start's first call (`npm run bench`, cold start).
 * undici has no `exports` map, so the path is reachable; `unwrap-handler.js` exists from undici 7
 * on (the handler API the transport speaks), so both loading means undici 7.
 */
const AGENT_MODULE = 'undici/lib/dispatcher/agent.js';
/** undici's connector factory, which `close()` wraps to track connecting sockets (the Agent loads it anyway). */
const CONNECT_MODULE = 'undici/lib/core/connect.js';
const UNDICI_7_MODULE = 'undici/lib/handler/unwrap-handler.js';

function importByName(name: string): Promise<unknown> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name) as Promise<unknown>;
}

/** The function a CommonJS module exports, imported from ESM (its `default`) or required (itself). */
function exportOf<F>(module: unknown, name: string): F {
  const value = (module as { default?: unknown }).default ?? module;
  if (typeof value !== 'function') throw new TypeError(`undici: no ${name}`);
  return value as F;
}

/**
 * undici, imported on the first call (importing the SDK costs nothing for it) by a name that
 * bundlers do not follow: a consumer's bundle then carries no copy of undici (about 530 KB). From
 * an installed package it resolves to the SDK's own dependency: its `Agent` module alone, or,
 * should that path move in a later undici, the whole package. Where neither can be loaded (a
 * bundle deployed without `node_modules`), or it is older than undici 7 (the handler API the
 * transport speaks), the answer is `undefined`.
 */
function loadUndici(): Promise<UndiciModule | undefined> {
  return (undiciModule ??= Promise.all([importByName(AGENT_MODULE), importByName(CONNECT_MODULE), importByName(UNDICI_7_MODULE)]).then(
    ([agent, connect]) => ({
      Agent: exportOf<UndiciModule['Agent']>(agent, 'Agent'),
      buildConnector: exportOf<UndiciModule['buildConnector']>(connect, 'buildConnector'),
    }),
    () =>
      importByName('undici').then(
        (undici) => ('cacheStores' in (undici as typeof Undici) ? (undici as typeof Undici) : undefined),
        () => undefined,
      ),
  ));
}

/**
 * The Node transport: undici on one pooled keep-alive dispatcher. The path is passed as a string
 * next to the origin, so nothing re-encodes what was signed. Without a caller's dispatcher, the
 * pooled `Agent` (and undici itself) is created on the first attempt, not at import; if undici
 * cannot be loaded then, the calls go through `fallback` (the fetch transport), or fail when
 * undici was asked for by name.
 */
export class UndiciTransport implements Transport {
  #dispatcher: Dispatcher | undefined;
  #creating: Promise<void> | undefined;
  #fallback: Transport | undefined;
  readonly #makeFallback: (() => Transport) | undefined;
  readonly #load: () => Promise<UndiciModule | undefined>;
  readonly #owned: boolean;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #connecting = new Connecting();
  /** Attempts running (not yet settled), and who waits for them all to end. */
  #live = 0;
  #idle: Array<() => void> = [];

  constructor(dispatcher?: UndiciDispatcher, fallback?: () => Transport, load = loadUndici) {
    this.#owned = dispatcher === undefined;
    this.#dispatcher = dispatcher as Dispatcher | undefined;
    this.#makeFallback = fallback;
    this.#load = load;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    const dispatcher = this.#dispatcher;
    if (dispatcher !== undefined) return this.#track(dispatchAttempt(dispatcher, req));
    if (this.#fallback !== undefined) return this.#fallback.send(req);
    return this.#ownAgent().then(() => this.send(req));
  }

  /** Counts an attempt as running until it settles (close() waits for those, bounded by their own timers). */
  #track(attempt: Promise<TransportResponse>): Promise<TransportResponse> {
    this.#live++;
    const done = (): void => {
      if (--this.#live > 0) return;
      for (const wake of this.#idle.splice(0)) wake();
    };
    attempt.then(done, done);
    return attempt;
  }

  #ownAgent(): Promise<void> {
    return (this.#creating ??= this.#load().then(async (undici) => {
      if (undici === undefined) {
        if (this.#makeFallback === undefined) throw new Error('undici 7 could not be loaded (npm install undici@7).');
        this.#fallback = this.#makeFallback();
        return;
      }
      const agent = new undici.Agent({ keepAliveTimeout: 10_000, connections: 64, connect: this.#connecting.connector(undici) });
      // Closed before its first call: the agent is closed too, so calls fail as after close().
      if (this.#closed) await agent.close();
      this.#dispatcher = agent;
    }));
  }

  /** Closes the pooled agent once; later calls share the first close (a second close is safe). */
  close(): Promise<void> {
    return (this.#closing ??= this.#closeOnce());
  }

  async #closeOnce(): Promise<void> {
    if (!this.#owned) return;
    this.#closed = true;
    const agent = this.#dispatcher;
    if (agent !== undefined) await this.#closeAgent(agent);
    // Still loading: the agent is closed as soon as it exists (see #ownAgent).
    else if (this.#creating !== undefined) await this.#creating.catch(() => undefined);
    await this.#fallback?.close();
  }

  /**
   * Lets the attempts still running end (each has its own timeout), then closes the agent; what
   * it still holds after a short grace (attempts given up on, stalled connects) is destroyed,
   * so that close() neither waits for undici's connect timeout nor leaves the process alive.
   */
  async #closeAgent(agent: Dispatcher): Promise<void> {
    if (this.#live > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    const closed = agent.close().then(
      () => true,
      () => true,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS)));
    const inTime = await Promise.race([closed, late]);
    clearTimeout(timer);
    if (inTime) return;
    this.#connecting.destroyAll();
    await agent.destroy(closedError()).catch(() => undefined);
  }
}
