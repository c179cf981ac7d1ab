import { printable } from '../text.js';

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
 * The client's `logLevel` (or `MERCHANT_API_LOG`): the least severe level passed to the logger,
 * or `off`. At `error`, what the SDK cannot raise to a caller (a test's interceptor that cannot
 * see the client); at `warn`, what an operator should know (a retry, a corrected clock); at
 * `info`, one line per call (the token exchange is a call too); at `debug`, every attempt.
 */
export type LogLevelSetting = 'off' | LogLevel;

const SEVERITY: Readonly<Record<LogLevelSetting, number>> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Whether `value` names a log level setting. */
export function isLogLevelSetting(value: unknown): value is LogLevelSetting {
  return typeof value === 'string' && Object.hasOwn(SEVERITY, value);
}

/**
 * A logger hook. Any object with some of these methods works (`console`, pino, winston). The
 * SDK passes a message and structured fields; it never passes secrets or bodies.
 */
export type Logger = Partial<Record<LogLevel, (message: string, fields?: LogFields) => void>>;

/**
 * The logger the client writes to: only the methods of `level` and above (a disabled level costs
 * a property read), and none at `off`. `console` gets each line as one line of text, the fields
 * as `key=value` after the message, instead of a message and a multi-line object.
 */
export function leveledLogger(logger: Logger | undefined, level: LogLevelSetting): Logger | undefined {
  if (logger === undefined || level === 'off') return undefined;
  const text = logger === (globalThis as { console?: unknown }).console;
  const out: Logger = {};
  for (const name of LEVELS) {
    const fn = logger[name];
    if (SEVERITY[name] < SEVERITY[level] || typeof fn !== 'function') continue;
    out[name] = text
      ? (message, fields) => fn.call(logger, oneLine(message, fields))
      : (message, fields) => (fields === undefined ? fn.call(logger, message) : fn.call(logger, message, fields));
  }
  return out;
}

/** `[merchant-stablecoin] message key=value ...`: text values quoted only when they need it. */
function oneLine(message: string, fields: LogFields | undefined): string {
  let line = `[merchant-stablecoin] ${message}`;
  for (const key in fields) {
    const value = fields[key];
    const plain = typeof value === 'string' && /^[^\s"=]+$/.test(value);
    line += ` ${key}=${printable(plain ? value : (JSON.stringify(value) ?? String(value)))}`;
  }
  return line;
}

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
