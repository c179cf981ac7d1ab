import { timingSafeEqual } from 'node:crypto';
import { fail } from './errors.js';
import { hex } from './ids.js';

/** The sandbox's API credentials (sandbox-only values; safe to print). */
export interface SandboxCredentials {
  /** Sent as `x-client-id` on token exchange. */
  clientId: string;
  /** Sent as `x-api-key` on token exchange. Never used for signing. */
  apiKey: string;
  /** HMAC key for request signatures. Never used for token exchange. */
  signingKey: string;
}

/** Token lifetime: 30 minutes (spec: Other constants). */
const TOKEN_TTL_MS = 30 * 60 * 1000;

interface TokenRow {
  expiresAt: number;
}

/** Constant-time string comparison that tolerates different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The key row and issued tokens. The spec reads key rows on every request, so revocation,
 * rotation and disabling take effect at once, without waiting for tokens to expire.
 */
export class KeyRing {
  credentials: SandboxCredentials;
  enabled = true;
  private readonly tokens = new Map<string, TokenRow>();

  constructor(initial: Partial<SandboxCredentials>) {
    this.credentials = {
      clientId: initial.clientId ?? `cli_sbx_${hex(8)}`,
      apiKey: initial.apiKey ?? `ak_sbx_${hex(16)}`,
      signingKey: initial.signingKey ?? `sk_sbx_${hex(16)}`,
    };
  }

  /**
   * Token exchange check. Missing, empty and wrong credentials, and a disabled key, share one
   * response (spec: `invalid_credentials`).
   */
  exchange(clientId: string | undefined, apiKey: string | undefined, now: number): { token: string; expiresAt: number } {
    const ok =
      this.enabled &&
      clientId !== undefined &&
      apiKey !== undefined &&
      safeEqual(clientId, this.credentials.clientId) &&
      safeEqual(apiKey, this.credentials.apiKey);
    if (!ok) fail('invalid_credentials', 'Invalid client id or API key.');
    const token = `tok_sbx_${hex(24)}`;
    const expiresAt = now + TOKEN_TTL_MS;
    this.tokens.set(token, { expiresAt });
    return { token, expiresAt };
  }

  /**
   * Reads `x-auth-token: Bearer X` (preferred) or `authorization: Bearer X`. Missing,
   * malformed, unknown, expired (by the sandbox clock) or of a disabled key: `invalid_token`.
   */
  verify(headers: Record<string, string>, now: number): void {
    const raw = headers['x-auth-token'] ?? headers['authorization'];
    const match = raw === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(raw);
    const row = match?.[1] === undefined ? undefined : this.tokens.get(match[1]);
    if (!this.enabled || !row || row.expiresAt <= now) fail('invalid_token', 'The access token is missing, invalid or expired.');
  }

  /** Invalidates every issued token. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Issues a new api key and signing key; old ones stop at once (no grace), tokens too. */
  rotate(next: Partial<SandboxCredentials> = {}): SandboxCredentials {
    this.credentials = {
      clientId: next.clientId ?? this.credentials.clientId,
      apiKey: next.apiKey ?? `ak_sbx_${hex(16)}`,
      signingKey: next.signingKey ?? `sk_sbx_${hex(16)}`,
    };
    this.revokeTokens();
    return this.credentials;
  }
}
