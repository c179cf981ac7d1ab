/**
 * For tests whose pool is a scripted object, not a server: the rows PostgreSQL's catalogs give for
 * a table that fits its store's layout, so that the store's first-use verify passes and the test
 * reaches the statement it is about. Answers the verify's catalog read (and its BEGIN/COMMIT);
 * every other statement goes to `other`.
 */
import type { PostgresClientLike } from '../../../src/postgres/index.js';
import type { TableLayout } from '../../../src/postgres/schema.js';

/** The catalog rows of a table that fits `layout`. */
export function fittingCatalogRows(layout: TableLayout): Record<string, unknown>[] {
  return [
    { kind: 'table' },
    ...layout.columns.map((c) => ({ kind: 'column', name: c.name, type: c.type, not_null: c.notNull, has_default: false })),
    ...layout.indexes.map((i, n) => ({
      kind: 'index',
      name: `i${n}`,
      is_unique: i.unique,
      method: 'btree',
      columns: [...i.columns],
      predicate: i.where ?? null,
      valid: true,
    })),
  ];
}

/** A client's `query` that answers the verify as a fitting table would, and `other` for the rest. */
export function answeringVerify(
  layout: TableLayout,
  other: (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
): PostgresClientLike['query'] {
  return (text: string, values?: unknown[]) => {
    if (text.includes('to_regclass')) return Promise.resolve({ rows: fittingCatalogRows(layout) });
    if (text.startsWith('BEGIN READ ONLY') || text === 'COMMIT') return Promise.resolve({ rows: [] });
    return other(text, values);
  };
}
