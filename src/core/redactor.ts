/** What masked text reads as. */
const REDACTED = '[redacted]';

/** Secrets shorter than this are still masked: a 4-digit PIN is a secret too. */
const MIN_SECRET_LENGTH = 3;

/** Tokens remembered besides the current one (a server may echo an older token). */
const REMEMBERED_TOKENS = 4;

/**
 * Masks every secret the client holds or sent in text a server chose, before that text enters an
 * error, a log line or `util.inspect`: a proxy's error page, an error `message` or `code`, an
 * `x-request-id`, a body that echoes the request. Each secret is masked as sent and in the forms
 * an echo may take (percent-encoded, JSON-escaped).
 */
export class Redactor {
  readonly #fixed: readonly string[];
  #tokens: string[] = [];

  /** @param secrets - The client's own secrets (api key, signing key). */
  constructor(secrets: readonly string[]) {
    this.#fixed = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  }

  /** Remembers a token the client sent (the current one and a few before it). */
  rememberToken(token: string): void {
    if (this.#tokens[0] === token || token.length < MIN_SECRET_LENGTH) return;
    this.#tokens = [token, ...this.#tokens.filter((t) => t !== token)].slice(0, REMEMBERED_TOKENS + 1);
  }

  /** Text with every known secret, and `extra` ones (a call's signatures, a PIN), masked. */
  redact(text: string, extra: readonly string[] = []): string {
    let out = text;
    for (const secret of [...this.#fixed, ...this.#tokens, ...extra]) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of forms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  }

  /** A copy of a JSON value with every string (keys included) redacted. */
  redactValue(value: unknown, extra: readonly string[] = []): unknown {
    if (typeof value === 'string') return this.redact(value, extra);
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, extra));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.redact(k, extra)] = this.redactValue(v, extra);
      return out;
    }
    return value;
  }

  /** Never shows what it holds. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Redactor {}';
  }

  /** `JSON.stringify` shows nothing it holds. */
  toJSON(): Record<string, unknown> {
    return {};
  }
}

/** The forms a secret takes when a server echoes it: as sent, percent-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  const out = [secret];
  const encoded = safeEncode(secret);
  if (encoded !== secret) out.push(encoded);
  const escaped = JSON.stringify(secret).slice(1, -1);
  if (escaped !== secret) out.push(escaped);
  return out;
}

function safeEncode(secret: string): string {
  try {
    return encodeURIComponent(secret);
  } catch {
    return secret;
  }
}
