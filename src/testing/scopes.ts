/** The scope names the spec has seen (Authentication > Scopes). */
export const KNOWN_SCOPES = [
  'members:read',
  'withdrawals:write',
  'qrpay:write',
  'merchant:read',
  'merchant:write',
  'balances:read',
  'addresses:write',
  'remittances:read',
  'remittances:write',
  'cards:write',
  'cards:secure',
  'deposits:write',
] as const;

/** Drops unknown scope keys silently, as the service does. */
export function normalizeScopes(scopes: readonly string[]): string[] {
  const known = new Set<string>(KNOWN_SCOPES);
  return [...new Set(scopes.filter((s) => known.has(s)))];
}

/** Whether `granted` covers `needed`; a `write` scope includes the `read` of the same resource. */
export function hasScope(granted: readonly string[], needed: string): boolean {
  if (granted.includes(needed)) return true;
  if (needed.endsWith(':read')) return granted.includes(`${needed.slice(0, -5)}:write`);
  return false;
}
