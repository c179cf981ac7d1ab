/**
 * Request headers as frameworks hand them over: Node's `IncomingHttpHeaders` (Express and
 * Fastify `req.headers` too), a plain record, or a Fetch `Headers` object. Names are matched
 * without regard to case.
 */
export type WebhookHeaders =
  | {
      /** Fetch `Headers`-style lookup (case-insensitive). */
      get(name: string): string | null;
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Headers normalised to lower-case names and single string values (repeated values joined by `, `). */
export type WebhookHeaderMap = Readonly<Record<string, string>>;

function isFetchHeaders(
  headers: WebhookHeaders,
): headers is { get(name: string): string | null; forEach(cb: (value: string, key: string) => void): void } {
  return typeof (headers as { get?: unknown }).get === 'function' && typeof (headers as { forEach?: unknown }).forEach === 'function';
}

/** Normalises any {@link WebhookHeaders} to a {@link WebhookHeaderMap}. */
export function normalizeHeaders(headers: WebhookHeaders | undefined | null): WebhookHeaderMap {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (headers === undefined || headers === null) return out;
  if (isFetchHeaders(headers)) {
    headers.forEach((value, key) => {
      out[key.toLowerCase()] = value;
    });
    return out;
  }
  // Not Fetch headers, so a plain record (a lone `get` without `forEach` is not a header map).
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const name = key.toLowerCase();
    const text = typeof value === 'string' ? value : value.join(', ');
    out[name] = out[name] === undefined ? text : `${out[name]}, ${text}`;
  }
  return out;
}
