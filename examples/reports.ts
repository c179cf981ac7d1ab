/**
 * Export reports (`client.reports`): the first page, `for await` over every report, page by
 * page, a capped collect, retrieving one before download, and what happens when a cursor
 * expires mid-walk (the service silently restarts from page one; the SDK raises instead of
 * yielding duplicates).
 *
 *   npx tsx examples/reports.ts
 */
import { PaginationRestartError, isLooseObject } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';

const sandbox = createSandbox();
sandbox.state.seedReports(45);
sandbox.state.seedReport({ status: 'archiving' }); // a status this SDK version does not know
const client = sandbox.client();

try {
  // Awaiting a list gives the first page. The end is decided by has_more, never by page length.
  const first = await client.reports.list({ limit: 10 });
  console.log(`first page: ${first.data.length} reports, has_more ${first.has_more}, next_cursor ${first.next_cursor ? 'set' : 'null'}`);

  // Iterating gives every item; the SDK follows the cursors. Unknown statuses are kept as strings.
  const byStatus = new Map<string, number>();
  for await (const report of client.reports.list({ limit: 20 })) byStatus.set(report.status, (byStatus.get(report.status) ?? 0) + 1);
  console.log(`all reports by status: ${[...byStatus].map(([s, n]) => `${s} ${n}`).join(', ')}`);

  // Page by page (`limit` is a page size), or a capped collect (`max` is a total).
  let pages = 0;
  for await (const page of client.reports.list({ limit: 25 }).pages()) pages += page.data.length > 0 ? 1 : 0;
  const newest = await client.reports.list({ limit: 100 }).collect(5);
  console.log(`pages of 25: ${pages}; five newest: ${newest.map((r) => r.id.slice(0, 12)).join(' ')}`);

  // The list has no download_url: retrieve a ready report before downloading.
  const ready = newest.find((r) => r.status === 'ready') ?? first.data.find((r) => r.status === 'ready');
  if (ready) {
    const detail = await client.reports.retrieve(ready.id);
    if (!isLooseObject(detail)) throw new Error(`report: not a JSON object (${JSON.stringify(detail)})`);
    console.log(
      `report ${detail.id}: ${String(detail.status)}, ${ready.rows} rows, ${ready.bytes} bytes, expires ${ready.expires_at}${detail.download_url ? `, download at ${detail.download_url}` : ''}`,
    );
  }

  // An expired cursor makes the service answer with the first page again.
  let seen = 0;
  try {
    for await (const report of client.reports.list({ limit: 10 })) {
      void report;
      seen++;
      if (seen === 15) sandbox.state.expireCursors(); // the cursor of page 2 expires
    }
  } catch (err) {
    if (!(err instanceof PaginationRestartError)) throw err;
    console.log(`after ${seen} reports the list restarted: PaginationRestartError (start a new iteration)`);
  }
  console.log('done');
} finally {
  await client.close();
}
