/** The answer's facts a request log entry keeps: status, error code, replay flag. */
import type { SandboxResponse } from './responses.js';
import type { RecordedRequest } from './service-deps.js';

/** The `code` of an error envelope, flat or wrapped in `error` (both shapes the spec shows). */
function codeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; error?: { code?: unknown } } | null;
    const code = parsed?.code ?? parsed?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the answer's status, code and replay flag into the log entry; returns the answer. */
export function recordOutcome(entry: RecordedRequest, r: SandboxResponse): SandboxResponse {
  entry.status = r.reset ? 0 : r.status;
  if (r.status >= 400) {
    const code = codeOf(r.body);
    if (code !== undefined) entry.code = code;
  }
  if (r.headers['x-idempotent-replay'] === 'true') entry.replay = true;
  return r;
}
