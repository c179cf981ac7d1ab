/** The admin API's plumbing: its answers, its errors, its JSON bodies, its route matching. */
import type { SandboxResponse } from '../responses.js';

/** A refusal of the admin API: an HTTP status and a message, answered as `{ error }`. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

/** A JSON answer (no `x-request-id`: admin calls are not requests to the simulated service). */
export function adminJson(status: number, body: unknown): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

/** An HTML answer. */
export function adminHtml(body: string): SandboxResponse {
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body };
}

/** The body as a JSON object (`{}` when empty); anything else is a 400. */
export function objectBody(body: Uint8Array): Record<string, unknown> {
  const text = Buffer.from(body).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AdminError(400, 'the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new AdminError(400, 'the body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** One admin request, parsed. */
interface AdminCall {
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  /** The JSON body (`{}` when empty). */
  body(): Record<string, unknown>;
}

/** One admin route: method, path template under `/__sandbox` (`:name` matches a segment), handler. */
export interface AdminRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly run: (call: AdminCall) => SandboxResponse | Promise<SandboxResponse>;
}

/** The parameters of `path` under `template`, or undefined when it does not match. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const a = template.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, seg] of a.entries()) {
    const got = b[i] ?? '';
    if (seg.startsWith(':')) {
      if (got === '') return undefined;
      params[seg.slice(1)] = decodeURIComponent(got);
    } else if (seg !== got) return undefined;
  }
  return params;
}

/** A string field of a body (required unless a fallback is given). */
export function stringField(body: Record<string, unknown>, key: string, fallback?: string): string {
  const v = body[key];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'string' || v === '') throw new AdminError(400, `${key} must be a non-empty string`);
  return v;
}

/** A finite number field of a body, or undefined when absent. */
export function numberField(body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new AdminError(400, `${key} must be a number`);
  return v;
}
