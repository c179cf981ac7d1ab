/** The idempotency window: 24 hours on the sandbox clock. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** UUID shape only (8-4-4-4-12 hex); the version is not checked (spec: idempotency_key_invalid). */
export const IDEMPOTENCY_KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A response as stored for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Entry {
  endpoint: string;
  bodyHash: string;
  createdAt: number;
  response?: StoredResponse;
}

/** Outcome of claiming a key. */
export type Claim = { kind: 'new' } | { kind: 'replay'; response: StoredResponse } | { kind: 'reused' } | { kind: 'in_progress' };

/**
 * Keys per merchant (one sandbox, one merchant). The request hash covers the body only, plus
 * the endpoint (method and path), as the spec says; entries older than 24 hours are gone.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  /** Claims `key` for a first execution, or says how to answer instead. */
  claim(key: string, endpoint: string, bodyHash: string, now: number): Claim {
    const existing = this.entries.get(key);
    if (existing && now - existing.createdAt < IDEMPOTENCY_WINDOW_MS) {
      if (existing.endpoint !== endpoint || existing.bodyHash !== bodyHash) return { kind: 'reused' };
      if (!existing.response) return { kind: 'in_progress' };
      return { kind: 'replay', response: existing.response };
    }
    this.entries.set(key, { endpoint, bodyHash, createdAt: now });
    return { kind: 'new' };
  }

  /** Stores the final response under a claimed key. */
  complete(key: string, response: StoredResponse): void {
    const e = this.entries.get(key);
    if (e) e.response = response;
  }

  /** Frees a claimed key whose outcome is not stored (5xx, uncached failures). */
  release(key: string): void {
    const e = this.entries.get(key);
    if (e && !e.response) this.entries.delete(key);
  }

  /** Number of live entries (for inspection). */
  get size(): number {
    return this.entries.size;
  }
}
