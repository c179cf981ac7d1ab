/**
 * The inspector page (`GET /__sandbox/`): the request log newest first with each refusal's
 * signature diagnosis, members with their eight buckets, webhook deliveries with their attempts,
 * and the faults still armed. Server-rendered, self-contained HTML: no script, no external
 * stylesheet, font or image, so it works offline and in any browser. Every value is escaped.
 */
import { requestsNewestFirst, membersView, type AdminHost, type RequestView } from '../admin/views.js';
import type { Bucket } from '../state-members.js';
import type { WebhookDelivery } from '../webhook-types.js';

const BUCKETS: readonly Bucket[] = ['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing'];
/** The page shows the newest requests only; the admin API has the whole log. */
const MAX_REQUESTS = 200;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
function escapeHtml(value: string | number | null | undefined): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2330}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#eef}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td.status{color:#a00;font-weight:600}tr.ok td.status{color:#070}
pre{margin:.25rem 0;white-space:pre-wrap;background:#f6f6f9;padding:.25rem}code{font-size:90%}.muted{color:#667}
td.path,td.diagnosis,td.url,pre{overflow-wrap:anywhere;min-width:8rem}`;

function diagnosisCell(r: RequestView): string {
  const d = r.diagnosis;
  if (!d) return '';
  const stringToSign = escapeHtml(d.expectedStringToSign);
  const prefix = `${d.component}: `;
  const text = d.message.startsWith(prefix) ? d.message.slice(prefix.length) : d.message;
  return `<strong class="component">${escapeHtml(d.component)}</strong>: ${escapeHtml(text)}<details><summary>expected string-to-sign</summary><pre>${stringToSign}</pre></details>`;
}

function requestRow(r: RequestView): string {
  const cls = r.status === undefined ? 'pending' : r.status >= 400 || r.status === 0 ? 'fail' : 'ok';
  const cells = [
    `<td>${escapeHtml(new Date(r.at).toISOString())}</td>`,
    `<td><code>${escapeHtml(r.requestId)}</code></td>`,
    `<td>${escapeHtml(r.method)}</td>`,
    `<td class="path"><code>${escapeHtml(r.path)}</code></td>`,
    `<td class="status">${escapeHtml(r.status ?? '…')}</td>`,
    `<td class="code">${escapeHtml(r.code ?? '')}</td>`,
    `<td>${escapeHtml(r.member ?? '')}</td>`,
    `<td><code>${escapeHtml(r.idempotencyKey ?? '')}</code></td>`,
    `<td class="replay">${r.replay === true ? 'replay' : ''}</td>`,
    `<td class="diagnosis">${diagnosisCell(r)}</td>`,
  ];
  return `<tr class="${cls}" data-request-id="${escapeHtml(r.requestId)}">${cells.join('')}</tr>`;
}

function requestsSection(host: AdminHost): string {
  const all = requestsNewestFirst(host.sandbox);
  const shown = all.slice(0, MAX_REQUESTS);
  const head = ['received', 'request id', 'method', 'path', 'status', 'code', 'member', 'idempotency key', 'replay', 'signature diagnosis'];
  const more = all.length > shown.length ? `<p class="muted">${all.length - shown.length} older requests: GET /__sandbox/requests</p>` : '';
  const body = shown.length === 0 ? '<p class="muted">No request yet.</p>' : table('requests', head, shown.map(requestRow));
  return `<section><h2>Requests (${all.length}, newest first)</h2>${body}${more}</section>`;
}

function table(id: string, head: readonly string[], rows: readonly string[]): string {
  return `<table id="${id}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function membersSection(host: AdminHost): string {
  const members = membersView(host);
  const rows = members.flatMap((m) => {
    const who = `<td><code>${escapeHtml(m.id)}</code></td><td>${escapeHtml(m.external_member_id)}</td><td>${escapeHtml(m.status)}</td><td class="num">${m.kyc_level}</td>`;
    if (m.balances.length === 0)
      return [
        `<tr data-member="${escapeHtml(m.id)}">${who}<td class="muted">no balance</td>${'<td></td>'.repeat(BUCKETS.length + 1)}</tr>`,
      ];
    return m.balances.map((b) => {
      const buckets = BUCKETS.map((k) => `<td class="num" data-bucket="${k}">${escapeHtml(b[k])}</td>`).join('');
      return `<tr data-member="${escapeHtml(m.id)}">${who}<td>${escapeHtml(b.asset)}</td>${buckets}<td class="num">${escapeHtml(b.total)}</td></tr>`;
    });
  });
  const head = ['member', 'external id', 'status', 'KYC', 'asset', ...BUCKETS, 'total'];
  const body = members.length === 0 ? '<p class="muted">No member yet.</p>' : table('members', head, rows);
  return `<section><h2>Members (${members.length})</h2>${body}</section>`;
}

function deliveryRow(d: WebhookDelivery): string {
  const outcome = d.ok ? 'delivered' : d.error !== undefined ? `error: ${d.error}` : `status ${d.status}`;
  return `<tr class="${d.ok ? 'ok' : 'fail'}"><td><code>${escapeHtml(d.event_id)}</code></td><td>${escapeHtml(d.event_type)}</td><td class="url">${escapeHtml(d.url)}</td><td class="num">${d.attempt}</td><td class="status">${escapeHtml(d.status ?? '')}</td><td>${escapeHtml(outcome)}</td></tr>`;
}

function webhooksSection(host: AdminHost): string {
  const { webhooks } = host.sandbox;
  const receivers = webhooks.receivers.length === 0 ? 'none' : webhooks.receivers.map((u) => `<code>${escapeHtml(u)}</code>`).join(', ');
  const rows = [...webhooks.deliveries].reverse().map(deliveryRow);
  const body =
    rows.length === 0
      ? '<p class="muted">No delivery yet.</p>'
      : table('deliveries', ['event', 'type', 'receiver', 'attempt', 'status', 'outcome'], rows);
  return `<section><h2>Webhook deliveries (${webhooks.deliveries.length} attempts, ${webhooks.events.length} events)</h2><p>Receivers: ${receivers}</p>${body}</section>`;
}

function faultsSection(host: AdminHost): string {
  const rows = host.sandbox.faults.list().map((f) => {
    const remaining = Number.isFinite(f.remaining) ? String(f.remaining) : 'always';
    return `<tr><td>${escapeHtml(f.match.method ?? 'any')}</td><td class="path"><code>${escapeHtml(String(f.match.path))}</code></td><td>${escapeHtml(f.fault.kind)}</td><td class="num">${escapeHtml(remaining)}</td><td class="num">${f.hits}</td><td class="num">${f.holding}</td></tr>`;
  });
  const body =
    rows.length === 0
      ? '<p class="muted">No fault armed.</p>'
      : table('faults', ['method', 'path', 'fault', 'remaining', 'hits', 'holding'], rows);
  return `<section><h2>Faults</h2>${body}</section>`;
}

/** The whole page, rendered from the sandbox's state at the time of the request. */
export function renderInspector(host: AdminHost): string {
  const { sandbox } = host;
  const now = new Date(sandbox.clock.now()).toISOString();
  const skew = sandbox.clock.signatureSkewMs;
  const signatures = skew === 0 ? 'real time' : `real time ${skew > 0 ? '+' : '-'} ${Math.abs(skew)} ms`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Merchant Stablecoin sandbox</title><style>${STYLE}</style></head><body>`,
    `<h1>Merchant Stablecoin sandbox</h1><p>Merchant <code>${escapeHtml(sandbox.merchantId)}</code> · business clock <time id="clock">${escapeHtml(now)}</time> · signatures checked on ${escapeHtml(signatures)} · JSON: <code>GET /__sandbox/requests</code>, <code>GET /__sandbox/members</code></p>`,
    requestsSection(host),
    membersSection(host),
    webhooksSection(host),
    faultsSection(host),
    '</body></html>',
    '',
  ].join('\n');
}
