import type { EndpointDescriptor } from '../../facts/endpoint.js';
import { ApiPromiseImpl } from './api-promise.js';
import type { AttemptRunner } from '../attempts/runner.js';
import { prepareCall, type PreparedCall } from '../call/call.js';
import type { JournalHook } from '../journal/hook.js';
import { journaled } from '../journal/rules.js';
import { toLoosePage } from '../lists/loose-page.js';
import { PageIterator, type PageFetcher } from '../lists/pagination.js';
import { readResult } from '../attempts/result.js';
import type { TokenManager } from '../credentials/token-manager.js';
import type { ApiPromise, CallArgs, EndpointCaller, ListArgs, LoosePage, Page, PagePromise, WithResponse } from '../types.js';
import { callBudgetMs } from '../time/deadline.js';

/** What the pipeline needs besides the attempt loop. */
export interface PipelineSettings {
  /** Path prefix of the base URL (usually empty), prepended to every `/v1/...` path. */
  readonly basePath: string;
  readonly validateResponses: boolean;
  /** The intent journal, when the client has one: money-moving calls are recorded before sending. */
  readonly journal?: JournalHook | undefined;
}

/**
 * The request pipeline resources call: prepare once (URL, body bytes, key), run the attempts
 * with a token, read the result. It knows nothing of any one endpoint beyond the descriptor's
 * generic fields.
 */
export class Pipeline implements EndpointCaller {
  readonly #settings: PipelineSettings;
  readonly #runner: AttemptRunner;
  readonly #tokens: TokenManager;

  constructor(settings: PipelineSettings, runner: AttemptRunner, tokens: TokenManager) {
    this.#settings = settings;
    this.#runner = runner;
    this.#tokens = tokens;
  }

  call<T>(endpoint: EndpointDescriptor<T>, args: CallArgs = {}): ApiPromise<T> {
    return new ApiPromiseImpl(this.#run(endpoint, args));
  }

  list<T>(endpoint: EndpointDescriptor<Page<T>>, args: ListArgs<T>): PagePromise<T> {
    return this.#pages(endpoint, args, (cursor) => this.#run(endpoint, this.#pageArgs(args, cursor)));
  }

  looseList<T>(endpoint: EndpointDescriptor<unknown>, args: ListArgs<T>): PagePromise<T, LoosePage<T>> {
    return this.#pages(endpoint, args, (cursor) =>
      this.#run(endpoint, this.#pageArgs(args, cursor)).then((r) => ({ data: toLoosePage<T>(r.data), response: r.response })),
    );
  }

  #pageArgs<T>(args: ListArgs<T>, cursor: string | undefined): CallArgs {
    return { ...args, query: { ...args.query, cursor } };
  }

  #pages<T, P extends Page<T>>(endpoint: EndpointDescriptor<unknown>, args: ListArgs<T>, fetch: PageFetcher<T, P>): PagePromise<T, P> {
    const start = args.query.cursor;
    // Empty pages saying has_more: true are followed for as long as one call of the list may last
    // (its options are checked by the first page's call, before any page is judged).
    const budget = this.#runner.budgetOf({ options: args.options });
    return new PageIterator<T, P>(fetch, {
      // A starting cursor is never dropped (the list guards refuse a non-string one before this point).
      start: start === undefined ? undefined : String(start),
      order: args.order,
      identity: args.identity,
      endpoint: `${endpoint.method} ${endpoint.path}`,
      stallBudgetMs: callBudgetMs(budget),
    });
  }

  async #run<T>(endpoint: EndpointDescriptor<T>, args: CallArgs): Promise<WithResponse<T>> {
    const call = prepareCall(endpoint, args, this.#settings.basePath);
    const journal = this.#settings.journal;
    // Without a journal, or for a call it does not cover, nothing is added to the call's path.
    if (journal === undefined || !journaled(endpoint)) return this.sendPrepared(call, endpoint);
    // The record is part of the call: its deadline counts from here, and bounds the record too.
    const tracked: PreparedCall = { ...call, startedAt: performance.now() };
    return journal.track(tracked, endpoint, this.#runner.budgetOf(tracked), () => this.sendPrepared(tracked, endpoint));
  }

  /** Runs a prepared call's attempts with a token and reads its result (recovery resends through it too). */
  sendPrepared<T>(call: PreparedCall, endpoint: EndpointDescriptor<T>): Promise<WithResponse<T>> {
    return this.#runner.run(call, { kind: 'token', tokens: this.#tokens }, endpoint, (response, context) =>
      readResult(endpoint, response, context, this.#settings.validateResponses),
    );
  }
}
