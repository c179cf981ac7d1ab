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

/** Calls the logger without letting a faulty logger break a payment. */
export function log(logger: Logger | undefined, level: LogLevel, message: string, fields?: LogFields): void {
  const fn = logger?.[level];
  if (fn === undefined) return;
  try {
    fn.call(logger, message, fields);
  } catch {
    // A logger failure must never fail the call it describes.
  }
}

/**
 * Escapes control characters (C0, DEL, C1) as `\uXXXX`, so that text a server chose (an error
 * code or message) cannot forge log lines or terminal escapes where it is printed.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
