import { InvalidArgumentError } from '../errors/errors.js';
import { hasControlChars } from '../text.js';
import type { QueryValue } from '../types.js';

/**
 * Strict RFC 3986 encoding: also encodes `!'()*`, which encodeURIComponent leaves alone and
 * WHATWG URL parsing may rewrite in a query. The string we sign must be the string sent.
 */
function encodeComponent(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Fills `{name}` placeholders with percent-encoded values; ids can never change the path. */
export function fillPath(template: string, params: Readonly<Record<string, string>> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new InvalidArgumentError(name, 'must be a non-empty string.');
    }
    // A bare "." or ".." segment is a dot segment to every URL parser, encoded or not.
    if (value === '.' || value === '..') throw new InvalidArgumentError(name, 'cannot be "." or "..".');
    // Control characters here; lone surrogates, which encodeURIComponent cannot encode, below.
    if (hasControlChars(value)) throw new InvalidArgumentError(name, 'must not contain control characters.');
    try {
      return encodeComponent(value);
    } catch {
      throw new InvalidArgumentError(name, 'is not valid Unicode text.');
    }
  });
}

/** Builds `?a=1&b=2` in the order given, skipping undefined values; empty string when none. */
export function buildQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeComponent(key)}=${encodeComponent(String(value))}`;
  }
  return out;
}

/** A segment every URL parser resolves: `.` or `..`, percent-encoded or not (`%2e`, `.%2E`...). */
function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

/**
 * Validates a raw path given to `client.request()`: absolute, no spaces, controls or fragment,
 * and nothing a URL parser would rewrite before sending (a dot segment, a backslash): the
 * service verifies the signature over the path it receives, which must be the path signed.
 */
export function checkRawPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new InvalidArgumentError('path', 'must start with "/".');
  // Printable ASCII only, so that no parser on the way re-encodes what was signed.
  if (/[^\x21-\x7e]/.test(path) || path.includes('#')) {
    throw new InvalidArgumentError('path', 'must be percent-encoded ASCII without spaces or "#".');
  }
  if (path.includes('\\')) throw new InvalidArgumentError('path', 'must not contain "\\" (URL parsers read it as "/").');
  const q = path.indexOf('?');
  if ((q === -1 ? path : path.slice(0, q)).split('/').some(isDotSegment)) {
    throw new InvalidArgumentError('path', 'must not contain "." or ".." segments, encoded or not (URL parsers resolve them).');
  }
  return path;
}
