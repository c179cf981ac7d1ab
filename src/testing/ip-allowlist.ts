/**
 * The key's IP allowlist (spec: Authentication > IP allowlist). Each entry is a single IP, a
 * wildcard prefix (`203.0.113.*`) or an IPv4 CIDR with prefix length `/8`, `/16` or `/24`.
 * Unrecognised formats never match and raise no error (`/28` and `/32` admit nothing). IPv6 is
 * matched only by exact address entries.
 */

/** The four octets of a dotted IPv4 address, or undefined when `text` is not one. */
function ipv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.map(Number);
}

/** The caller's address as compared: an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4. */
function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip.toLowerCase();
}

/** The first `count` octets of `entry` equal the caller's. */
function samePrefix(entry: number[], caller: number[], count: number): boolean {
  return entry.slice(0, count).every((o, i) => o === caller[i]);
}

/** Whether one allowlist entry admits `ip` (already normalised). */
function admits(entry: string, ip: string): boolean {
  const e = entry.trim().toLowerCase();
  if (e.includes(':')) return e === ip;
  const caller = ipv4(ip);
  if (caller === undefined) return false;
  const wildcard = /^((?:\d{1,3}\.){1,3})\*$/.exec(e);
  if (wildcard) {
    const octets = (wildcard[1] ?? '').slice(0, -1).split('.').map(Number);
    return samePrefix(octets, caller, octets.length);
  }
  const [base, bits, extra] = e.split('/');
  const octets = ipv4(base ?? '');
  if (octets === undefined || extra !== undefined) return false;
  if (bits === undefined) return samePrefix(octets, caller, 4);
  return ['8', '16', '24'].includes(bits) && samePrefix(octets, caller, Number(bits) / 8);
}

/**
 * Whether the allowlist admits the caller. An empty list admits everyone on a sandbox key
 * (sandbox's choice: the spec requires a non-empty list of live keys only) and no one on a live
 * key (the spec: "Live keys must have a non-empty allowlist"; `setIpAllowlist` refuses to empty
 * one, and should one be empty anyway, it fails closed).
 */
export function ipAllowed(allowlist: readonly string[], ip: string, key: 'sandbox' | 'live'): boolean {
  if (allowlist.length === 0) return key === 'sandbox';
  const caller = normalizeIp(ip);
  return allowlist.some((entry) => admits(entry, caller));
}
