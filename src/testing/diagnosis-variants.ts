/**
 * The variant search behind a signature diagnosis: which plausible mistake, applied to one
 * component of the expected string-to-sign, reproduces the signature the caller sent. Components
 * are tried in signing order (method, path, timestamp, nonce, body), then the string's format,
 * the signature's encoding and the key, so the first component that differs is the one named.
 */
import { createHash, createHmac } from 'node:crypto';
import type { DiagnosisComponent } from './diagnosis-types.js';

/** The five components as the sandbox received them, plus the host for full-URL variants. */
export interface SignedParts {
  readonly method: string;
  readonly path: string;
  readonly timestamp: string;
  readonly nonce: string;
  readonly body: Uint8Array;
  readonly host: string | undefined;
}

/** A candidate string-to-sign (or signature form) and the sentence that names the mistake. */
interface Variant {
  readonly component: DiagnosisComponent;
  readonly strings: readonly string[];
  readonly message: string;
  /** How the HMAC is keyed and encoded (default: signing key, base64). */
  readonly key?: 'signing' | 'api';
  readonly encoding?: 'base64' | 'hex' | 'base64url';
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const join = (p: readonly string[]): string => p.join('\n');

function methodVariants(p: SignedParts, hash: string): Variant[] {
  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', p.method.toLowerCase()].filter((m) => m !== p.method);
  return others.map((m) => ({
    component: 'method',
    strings: [join([m, p.path, p.timestamp, p.nonce, hash])],
    message: `method: you signed ${m}, the request was ${p.method} (uppercase, as sent)`,
  }));
}

/** Paths a caller plausibly signed instead of the request line. */
function pathCandidates(p: SignedParts): string[] {
  const q = p.path.indexOf('?');
  const bare = q < 0 ? p.path : p.path.slice(0, q);
  const query = q < 0 ? '' : p.path.slice(q + 1);
  const out = [bare];
  if (query !== '') {
    const params = new URLSearchParams(query);
    out.push(`${bare}?${params.toString()}`);
    params.sort();
    out.push(`${bare}?${params.toString()}`);
  }
  out.push(safeDecode(p.path), p.path.replace(/^\/v1(?=\/)/, ''), bare.endsWith('/') ? bare.slice(0, -1) : `${bare}/`);
  if (p.host !== undefined) out.push(`http://${p.host}${p.path}`, `https://${p.host}${p.path}`);
  return [...new Set(out)].filter((c) => c !== p.path);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function pathVariants(p: SignedParts, hash: string): Variant[] {
  return pathCandidates(p).map((path) => ({
    component: 'path',
    strings: [join([p.method, path, p.timestamp, p.nonce, hash])],
    message: `path: you signed ${path}, the request line was ${p.path}`,
  }));
}

function timestampVariants(p: SignedParts, hash: string): Variant[] {
  const ts = Number(p.timestamp);
  const candidates = [`${p.timestamp}000`, String(ts - 1), String(ts + 1), String(ts - 2), String(ts + 2)];
  return candidates.map((t) => ({
    component: 'timestamp',
    strings: [join([p.method, p.path, t, p.nonce, hash])],
    message: `timestamp: you signed ${t}, x-timestamp was ${p.timestamp}; sign the exact value you send`,
  }));
}

function nonceVariants(p: SignedParts, hash: string): Variant[] {
  return [
    {
      component: 'nonce',
      strings: [join([p.method, p.path, p.timestamp, '', hash]), join([p.method, p.path, p.timestamp, hash])],
      message: `nonce: you left the nonce out of the signed string; x-nonce was ${p.nonce}`,
    },
  ];
}

/** Other serializations of a JSON body: what a caller signs when it serializes twice. */
function reserialized(body: Uint8Array): string[] {
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return [JSON.stringify(value), JSON.stringify(value, null, 2)];
  } catch {
    return [];
  }
}

function bodyVariants(p: SignedParts, hash: string): Variant[] {
  const line = (h: string): string => join([p.method, p.path, p.timestamp, p.nonce, h]);
  const size = p.body.length;
  const raw = Buffer.from(p.body).toString('utf8');
  const out: Variant[] = [
    {
      component: 'body',
      strings: [line(sha256(''))],
      message: `body: you signed the hash of an empty body, the request carried ${size} bytes (sha256 ${hash})`,
    },
    { component: 'body', strings: [line(raw)], message: 'body: you signed the raw body; sign its sha256, hex-encoded' },
    {
      component: 'body',
      strings: [line(hash.toUpperCase())],
      message: 'body: you signed the body hash in uppercase hex; use lowercase hex',
    },
    {
      component: 'body',
      strings: [line(createHash('sha256').update(p.body).digest('base64'))],
      message: 'body: you signed the body hash in base64; the body hash is hex (only the HMAC is base64)',
    },
  ];
  const others = reserialized(p.body).filter((s) => s !== raw);
  if (others.length > 0) {
    out.push({
      component: 'body',
      strings: others.map((s) => line(sha256(s))),
      message: `body: you signed another serialization of the same JSON; hash the exact bytes you send (sha256 ${hash})`,
    });
  }
  return out;
}

function formatVariants(p: SignedParts, hash: string): Variant[] {
  const parts = [p.method, p.path, p.timestamp, p.nonce, hash];
  return [
    { component: 'format', strings: [parts.join('\r\n')], message: 'format: you joined the components with \\r\\n; join them with \\n' },
    {
      component: 'format',
      strings: [`${join(parts)}\n`],
      message: 'format: you ended the string-to-sign with a newline; join the five components with \\n and add none',
    },
    { component: 'format', strings: [parts.join('')], message: 'format: you concatenated the components; join them with \\n' },
  ];
}

function keyAndEncodingVariants(expected: string): Variant[] {
  return [
    {
      component: 'encoding',
      strings: [expected],
      encoding: 'hex',
      message: 'encoding: x-signature is a hex HMAC (64 characters); send its base64 (44 characters)',
    },
    {
      component: 'encoding',
      strings: [expected],
      encoding: 'base64url',
      message: 'encoding: x-signature is base64url; send standard base64 (with + / and = padding)',
    },
    {
      component: 'key',
      strings: [expected],
      key: 'api',
      message: 'key: you signed with the api key; sign with the signing key (MERCHANT_API_SIGNING_KEY)',
    },
  ];
}

/**
 * Tries each variant against `signature`; returns the first that reproduces it, or `unknown`
 * with a hint when none does (most often a wrong signing key).
 */
export function variantSearch(
  p: SignedParts,
  signature: string,
  keys: { readonly signingKey: string; readonly apiKey: string },
): { component: DiagnosisComponent; message: string } {
  const hash = sha256(p.body);
  const expected = join([p.method, p.path, p.timestamp, p.nonce, hash]);
  const variants = [
    ...methodVariants(p, hash),
    ...pathVariants(p, hash),
    ...timestampVariants(p, hash),
    ...nonceVariants(p, hash),
    ...bodyVariants(p, hash),
    ...formatVariants(p, hash),
    ...keyAndEncodingVariants(expected),
  ];
  for (const v of variants) {
    const key = v.key === 'api' ? keys.apiKey : keys.signingKey;
    const matches = v.strings.some(
      (s) =>
        createHmac('sha256', key)
          .update(s, 'utf8')
          .digest(v.encoding ?? 'base64') === signature,
    );
    if (matches) return { component: v.component, message: v.message };
  }
  const shape = signature.length === 44 ? '' : ` (x-signature is ${signature.length} characters; a base64 HMAC-SHA256 is 44)`;
  return {
    component: 'unknown',
    message: `signature: no single component explains the difference${shape}; check the signing key and compare your string-to-sign with expectedStringToSign`,
  };
}
