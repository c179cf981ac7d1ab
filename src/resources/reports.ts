import type { Loose } from '../schemas/common.js';
import type { ApiPromise, CallOptions, EndpointCaller, ListOrderCheck, PagePromise } from '../core/types.js';
import type { ExportReport, ReportDetail } from '../schemas/reports.js';
import { REPORTS_LIST, REPORTS_RETRIEVE } from '../facts/endpoints.js';
import { checkId, listQuery, type ListParams } from './guards.js';
import { rejectingBadInput } from './rejections.js';

/** Digits below the millisecond (`Date.parse` drops them), padded to nanoseconds. */
function subMillisecond(timestamp: string): string {
  return (/\.\d{3}(\d*)/.exec(timestamp)?.[1] ?? '').padEnd(9, '0');
}

/** Compares two reports by (`created_at` as an instant, then `id`). */
function compareReports(a: ExportReport, b: ExportReport): number {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  if (Number.isFinite(ta) && Number.isFinite(tb)) {
    if (ta !== tb) return ta < tb ? -1 : 1;
    const fa = subMillisecond(a.created_at);
    const fb = subMillisecond(b.created_at);
    if (fa !== fb) return fa < fb ? -1 : 1;
  } else if (a.created_at !== b.created_at) {
    return a.created_at < b.created_at ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The order of `GET /v1/reports`: strictly descending by (`created_at`, `id`). A next item that
 * is not strictly below the previous one means the service restarted from the first page (an
 * expired cursor), which the iterator reports instead of yielding duplicates.
 */
export const reportsDescending: ListOrderCheck<ExportReport> = (previous, next) => compareReports(previous, next) > 0;

/** Export reports of the merchant. */
export class Reports {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Export tasks (`GET /v1/reports`), strictly descending by (`created_at`, `id`): awaitable for
   * the first page, async-iterable over reports. A silent restart from the first page (expired
   * cursor) raises `PaginationRestartError` instead of yielding duplicates.
   *
   * Scope `merchant:read`. Merchant account. Read: no idempotency key, moves no funds.
   *
   * Rules: `rows` and `bytes` are 0 before `ready`; a `ready` file is kept 7 days (`expires_at`).
   * The list has no `download_url`: call {@link Reports.retrieve} before downloading. Unknown
   * statuses and kinds are kept as strings; show them unchanged.
   *
   * Errors: 403 `insufficient_scope`.
   *
   * @throws InvalidArgumentError when `limit` is not a positive integer.
   */
  list(params?: ListParams, options?: CallOptions): PagePromise<ExportReport> {
    return this.#api.list(REPORTS_LIST, { query: listQuery(params), order: reportsDescending, options });
  }

  /**
   * One report (`GET /v1/reports/{id}`), called before downloading.
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: loosely typed (`download_url` optional, implied by the prose).
   *
   * Errors: not shown.
   *
   * @param reportId - `rep_<uuid>`.
   */
  retrieve(reportId: string, options?: CallOptions): ApiPromise<Loose<ReportDetail>> {
    return this.#api.call(REPORTS_RETRIEVE, { pathParams: { id: checkId(reportId, 'reportId') }, options });
  }
}

rejectingBadInput(Reports);
