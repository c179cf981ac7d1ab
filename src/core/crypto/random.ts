/**
 * A random v4 UUID (nonces, idempotency keys) from the runtime's Web Crypto, which Node 20+,
 * Bun, Deno, workerd and browsers all have as `globalThis.crypto`: no `node:crypto` import.
 */
export function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
