import type { CallOptions, EndpointCaller, LoosePage, PagePromise } from '../core/types.js';
import type { LooseItem } from '../schemas/common.js';
import { ASSETS_LIST } from '../facts/endpoints.js';
import { looseListQuery, type ListParams, type LooseQuery } from './guards.js';
import { rejectingBadInput } from './rejections.js';

/** The asset catalogue. */
export class Assets {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * The asset catalogue (`GET /v1/assets`). Parse amounts at an asset's `ledger_scale`;
   * `display_scale` is for display only.
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: assumed the list envelope, loosely typed items.
   *
   * Errors: not shown.
   */
  list(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(ASSETS_LIST, { query: looseListQuery(params), options });
  }
}

rejectingBadInput(Assets);
