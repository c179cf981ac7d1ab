import { MerchantSdkError } from '../errors/errors.js';

/**
 * A list iterator saw the service restart from the first page (the spec: an undecodable or
 * expired cursor returns the first page, not an error): an item already yielded in this
 * iteration came back after a page boundary, or (reports) the order went backwards. Nothing of
 * the restarted page was yielded. Start a new iteration.
 */
export class PaginationRestartError extends MerchantSdkError {
  /** Class name, `PaginationRestartError` (survives minification, unlike `constructor.name`). */
  override name = 'PaginationRestartError';
  /** The cursor that the service no longer accepted. */
  readonly cursor: string | null;
  /** The list's endpoint (`METHOD /path`), when known. */
  readonly endpoint: string | undefined;
  constructor(cursor: string | null, endpoint?: string) {
    super(
      `${endpoint === undefined ? 'The list' : `The list ${endpoint}`} restarted from its first page (the cursor expired or could not be decoded); stopping instead of yielding duplicates. Start a new iteration.`,
    );
    this.cursor = cursor;
    this.endpoint = endpoint;
  }
}

/**
 * Why a list stopped making progress ({@link PaginationStalledError}):
 * - `missing_cursor`: `has_more: true` without a `next_cursor`;
 * - `repeated_cursor`: a `next_cursor` the iteration already followed (the next request would
 *   repeat an earlier one);
 * - `empty_pages`: `has_more: true` with no items (each page with a new cursor) for longer than
 *   the list call's own deadline, `timeoutMs × (maxRetries + 1)`, since the last page with items.
 */
export type PaginationStallReason = 'missing_cursor' | 'repeated_cursor' | 'empty_pages';

/**
 * A list answered pages that make no progress, so iterating would request pages for ever.
 * Raised instead of looping; what was yielded before is complete and free of duplicates.
 */
export class PaginationStalledError extends MerchantSdkError {
  /** Class name, `PaginationStalledError` (survives minification, unlike `constructor.name`). */
  override name = 'PaginationStalledError';
  /** The list's endpoint (`METHOD /path`), when known. */
  readonly endpoint: string | undefined;
  /** What the service answered. */
  readonly reason: PaginationStallReason;
  /** The cursor of the last request made. */
  readonly cursor: string | null;
  constructor(reason: PaginationStallReason, cursor: string | null, endpoint?: string) {
    super(
      `${endpoint === undefined ? 'The list' : `The list ${endpoint}`} makes no progress: ${STALL_TEXT[reason]}; stopping instead of looping.`,
    );
    this.reason = reason;
    this.cursor = cursor;
    this.endpoint = endpoint;
  }
}

const STALL_TEXT: Readonly<Record<PaginationStallReason, string>> = {
  missing_cursor: 'it reported has_more: true without a next_cursor',
  repeated_cursor: 'it answered a next_cursor that this iteration already followed',
  empty_pages: "it answered has_more: true with no items for longer than the list call's deadline (timeoutMs × (maxRetries + 1))",
};
