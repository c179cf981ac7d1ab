/** Fields of a log line. Never carries keys, tokens, signatures, PINs or request bodies. */
export interface LogFields {
  /** HTTP method. */
  readonly method?: string;
  /** Path with query, as sent. */
  readonly path?: string;
  /** HTTP status of the attempt, when a response arrived. */
  readonly status?: number;
  /** Attempt number, 1 for the first. */
  readonly attempt?: number;
  /** Duration of the attempt in milliseconds. */
  readonly durationMs?: number;
  /** `X-Request-Id` of the response. */
  readonly requestId?: string | undefined;
  /** Error code of a failed attempt. */
  readonly code?: string;
  /** Other fields the SDK may add (never secrets or bodies). */
  readonly [key: string]: unknown;
}

/** Log levels the SDK emits. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * A logger hook. Any object with some of these methods works (`console`, pino, winston). The
 * SDK passes a message and structured fields; it never passes secrets or bodies.
 */
export type Logger = Partial<Record<LogLevel, (message: string, fields?: LogFields) => void>>;

/**
 * Calls the logger without letting a faulty logger break a payment. Fields whose value is
 * undefined are left out, and no fields argument is passed when none is left, so that
 * `logger: console` prints no stray `undefined`.
 */
export function log(logger: Logger | undefined, level: LogLevel, message: string, fields?: LogFields): void {
  const fn = logger?.[level];
  if (fn === undefined) return;
  const present = fields === undefined ? undefined : definedFields(fields);
  try {
    if (present === undefined) fn.call(logger, message);
    else fn.call(logger, message, present);
  } catch {
    // A logger failure must never fail the call it describes.
  }
}

function definedFields(fields: LogFields): LogFields | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key in fields) {
    if (fields[key] === undefined) continue;
    out[key] = fields[key];
    any = true;
  }
  return any ? out : undefined;
}

/**
 * Escapes control characters (C0, DEL, C1) as `\uXXXX`, so that text a server chose (an error
 * code or message) cannot forge log lines or terminal escapes where it is printed.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
