/**
 * Text facts every identifier, key and header value the SDK sends is checked against, written
 * once: C0 control characters and DEL. CR and LF would split or smuggle a header; the others have
 * no place in an identifier, a credential or a path segment.
 */

// C0 controls (U+0000 to U+001F) and DEL (U+007F). C1 controls are printable Latin-1 to a header.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const CONTROL_CHARS_ALL = new RegExp(CONTROL_CHARS.source, 'g');

/** Whether `text` contains a C0 control character or DEL. */
export function hasControlChars(text: string): boolean {
  return CONTROL_CHARS.test(text);
}

/** `text` without its C0 control characters and DEL (for a header value the caller chose). */
export function withoutControlChars(text: string): string {
  return text.replace(CONTROL_CHARS_ALL, '');
}

/**
 * Escapes control characters (C0, DEL, C1) as `\uXXXX`, so that text a server chose (an error
 * code or message) cannot forge log lines or terminal escapes where it is printed.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
