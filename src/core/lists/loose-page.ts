import type { LoosePage } from '../types.js';

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The items of a body whose shape the spec does not show: a bare array's elements, or the
 * `data` array of an object (a list envelope); `undefined` for any other value.
 */
function looseListItems(body: unknown): readonly unknown[] | undefined {
  if (Array.isArray(body)) return body as unknown[];
  if (isRecord(body) && Array.isArray(body['data'])) return body['data'] as unknown[];
  return undefined;
}

/**
 * Reads any JSON body as one {@link LoosePage}: a list envelope as such, a bare array as its only
 * page, anything else as a page without items whose `body` carries the value. Never throws: the
 * spec does not show these shapes, so none of them is an error.
 */
export function toLoosePage<T>(body: unknown): LoosePage<T> {
  if (Array.isArray(body)) return { data: body as T[], next_cursor: null, has_more: false, shape: 'array', body };
  const items = looseListItems(body);
  if (items !== undefined && isRecord(body)) {
    const cursor = body['next_cursor'];
    return {
      data: items as T[],
      next_cursor: typeof cursor === 'string' ? cursor : null,
      has_more: body['has_more'] === true,
      shape: 'envelope',
      body,
    };
  }
  return { data: [], next_cursor: null, has_more: false, shape: 'other', body };
}
