/**
 * What the zod schemas do not carry into JSON Schema and the spec states, written onto the
 * converted components: timestamps are `format: date-time` (Conventions: "Timestamps are ISO 8601
 * strings unless stated otherwise"; a field documented as ISO 8601 that may also be `""` admits
 * both), and a count of seconds or a version is an `integer`, never a `number`.
 */
import type { JsonSchema } from './type-schema.js';

/** `ISO 8601`, `ISO timestamp`: a field documented as a timestamp. */
const TIMESTAMP_DOC = /^ISO (8601|timestamp)\b/;
/** A doc that says the field may also be the empty string. */
const EMPTY_TOO = /or `""`/;

/** One schema node, refined in place (children first). */
export function refineSchema(node: unknown): void {
  if (Array.isArray(node)) {
    for (const x of node) refineSchema(x);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const o = node as JsonSchema;
  for (const v of Object.values(o)) refineSchema(v);
  const doc = typeof o['description'] === 'string' ? o['description'] : '';
  if (o['type'] === 'string' && TIMESTAMP_DOC.test(doc) && o['format'] === undefined) {
    if (EMPTY_TOO.test(doc)) {
      delete o['type'];
      o['anyOf'] = [
        { type: 'string', format: 'date-time' },
        { type: 'string', const: '' },
      ];
    } else {
      o['format'] = 'date-time';
    }
  }
  // `z.literal(0)` converts to a `number` const; Unix seconds and `retry_after` seconds are whole.
  if (o['type'] === 'number' && (Number.isInteger(o['const']) || /\b(Unix seconds|Seconds to wait)\b/.test(doc))) o['type'] = 'integer';
}
