/** Seeding export reports, and expiring the cursors that page through them. */
import { uuid } from '../ids.js';
import type { ReportRecord, Store } from '../store.js';
import type { ReportSnapshot, SeedReportsOptions } from '../state-merchant.js';
import type { SandboxState } from '../state-types.js';
import { reportView } from '../views.js';
import type { SeedContext } from './context.js';

type ReportSeeds = Pick<SandboxState, 'seedReports' | 'seedReport' | 'expireCursors'>;

/** A ready report is kept 7 days. */
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** A report as the list endpoint shows it. */
function reportSnap(r: ReportRecord): ReportSnapshot {
  return reportView(r) as unknown as ReportSnapshot;
}

/** Reports, newest first (ties by id, descending), as tests see them. */
export function reportsNewestFirst({ store }: SeedContext): ReportSnapshot[] {
  return [...store.reports.values()].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).map(reportSnap);
}

function putReport(store: Store, r: ReportRecord): ReportSnapshot {
  store.reports.set(r.id, r);
  return reportSnap(r);
}

/** The i-th of a seeded series: mostly `ready`, the 4th of ten `building`, the 8th `failed`. */
function seriesReport(i: number, created: number, options: SeedReportsOptions): ReportRecord {
  const status = options.status ?? (i % 10 === 3 ? 'building' : i % 10 === 7 ? 'failed' : 'ready');
  const rows = status === 'ready' ? 100 + i : 0;
  return {
    id: `rep_${uuid()}`,
    kind: options.kind ?? 'statements',
    status,
    rows,
    bytes: rows * 64,
    error: status === 'failed' ? 'too_large' : '',
    created_at: created,
    expires_at: created + RETENTION_MS,
  };
}

/** The report seeders of `sandbox.state`. */
export function reportSeeds({ store, now }: SeedContext): ReportSeeds {
  return {
    seedReports(n, options = {}) {
      const spacing = options.spacingMs ?? 60_000;
      const base = now() - 1000;
      const out: ReportSnapshot[] = [];
      // Pairs share a timestamp, so that keyset pages must break ties by id.
      for (let i = 0; i < n; i++) out.push(putReport(store, seriesReport(i, base - Math.floor(i / 2) * spacing, options)));
      return out;
    },
    seedReport(report) {
      const created = report.created_at_ms ?? (report.created_at ? Date.parse(report.created_at) : now());
      return putReport(store, {
        id: report.id ?? `rep_${uuid()}`,
        kind: report.kind ?? 'statements',
        status: report.status ?? 'ready',
        rows: report.rows ?? 0,
        bytes: report.bytes ?? 0,
        error: report.error ?? '',
        created_at: created,
        expires_at: report.expires_at ? Date.parse(report.expires_at) : created + RETENTION_MS,
      });
    },
    expireCursors() {
      store.cursorGeneration += 1;
    },
  };
}
