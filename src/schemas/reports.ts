import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { integer, isoTimestamp, looseResultSchema, openEnum, pageSchema } from './common.js';

/** Export report states (States and transitions > Export report). */
const REPORT_STATUSES = ['queued', 'building', 'ready', 'failed', 'expired'] as const;
/** Report kinds: not shown beyond `statements`. */
const REPORT_KINDS = ['statements'] as const;
/** `error` values on failure (empty unless failed). */
const REPORT_ERRORS = ['', 'too_large', 'unknown_kind', 'build_timeout', 'build_failed'] as const;

/** An export report list item. */
export const exportReportSchema = looseObject({
  /** `rep_<uuid>`. */
  id: z.string(),
  /** Report kind (`statements`; other values kept). */
  kind: openEnum(REPORT_KINDS),
  /** `queued`, `building`, `ready`, `failed` or `expired` (unknown values kept: show them). */
  status: openEnum(REPORT_STATUSES),
  /** Meaningful only after `ready` (0 before). */
  rows: integer,
  /** Meaningful only after `ready` (0 before). */
  bytes: integer,
  /** Empty unless failed: `too_large`, `unknown_kind`, `build_timeout`, `build_failed`. */
  error: openEnum(REPORT_ERRORS),
  /** ISO 8601; a `ready` file is removed 7 days after it became ready. */
  expires_at: isoTimestamp,
  /** ISO 8601; the list is strictly descending by (`created_at`, `id`). */
  created_at: isoTimestamp,
});

/** An export report. */
export interface ExportReport extends z.infer<typeof exportReportSchema> {}

/** A page of `GET /v1/reports`. */
export const exportReportPageSchema = pageSchema(exportReportSchema);

/**
 * `GET /v1/reports/{id}`: shape not shown. The prose implies a download address (the list has
 * no `download_url`, retrieve is called before downloading); `download_url` is typed optional.
 * Typed as implied, never checked: every field comes through as received.
 */
export const reportDetailSchema = z.extend(looseResultSchema, {
  /** Report status (unknown values kept). */
  status: z.optional(openEnum(REPORT_STATUSES)),
  /** Download address, when the service sends one (shape not shown). */
  download_url: z.optional(z.string()),
});

/** A report (loosely typed). */
export interface ReportDetail extends z.infer<typeof reportDetailSchema> {}
