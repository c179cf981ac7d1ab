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
  // Each secret with its echo forms, computed once: the forms cost more than the masking, and
  // redact runs on every response (its request id) (`npm run bench`, profile).
  readonly #fixed: readonly (readonly string[])[];
  #tokens: { readonly token: string; readonly forms: readonly string[] }[] = [];

  /** @param secrets - The client's own secrets (api key, signing key). */
  constructor(secrets: readonly string[]) {
    this.#fixed = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).map(forms);
  }

  /** Remembers a token the client sent (the current one and a few before it). */
  rememberToken(token: string): void {
    if (this.#tokens[0]?.token === token || token.length < MIN_SECRET_LENGTH) return;
    const kept = this.#tokens.filter((t) => t.token !== token);
    this.#tokens = [{ token, forms: forms(token) }, ...kept].slice(0, REMEMBERED_TOKENS + 1);
  }

  /** Text with every known secret, and `extra` ones (a call's signatures, a PIN), masked. */
  redact(text: string, extra: readonly string[] = []): string {
    let out = text;
    for (const secretForms of this.#fixed) out = mask(out, secretForms);
    for (const { forms: tokenForms } of this.#tokens) out = mask(out, tokenForms);
    // No form of a secret is shorter than the secret: a shorter text (a request id) needs none built.
    for (const secret of extra) if (secret.length >= MIN_SECRET_LENGTH && out.length >= secret.length) out = mask(out, forms(secret));
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

/** `text` with each form masked; `secretForms[0]` is the secret as sent, the shortest form. */
function mask(text: string, secretForms: readonly string[]): string {
  if (text.length < secretForms[0]!.length) return text;
  let out = text;
  for (const form of secretForms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
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
