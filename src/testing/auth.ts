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

/** The environment a key belongs to and a deployment serves (spec: Environments). */
export type SandboxEnvironment = 'sandbox' | 'live';

interface TokenRow {
  expiresAt: number;
  environment: SandboxEnvironment;
}

/** A key identified by its credentials at token exchange. */
export interface KeyRow {
  readonly environment: SandboxEnvironment;
  readonly signingKey: string;
}

/** Constant-time string comparison that tolerates different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Random credentials with the environment's prefixes. */
function randomCredentials(env: 'sbx' | 'live'): SandboxCredentials {
  return { clientId: `cli_${env}_${hex(8)}`, apiKey: `ak_${env}_${hex(16)}`, signingKey: `sk_${env}_${hex(16)}` };
}

/**
 * The key rows and issued tokens. The spec reads key rows on every request, so revocation,
 * rotation and disabling take effect at once, without waiting for tokens to expire.
 *
 * Two keys of one merchant: the sandbox key (`credentials`), which `disableKey`, `rotate` and
 * scopes act on, and a live key (`live`), so that a test can see what live credentials get: the
 * faucet's 404 and `environment_mismatch` across environments.
 */
export class KeyRing {
  credentials: SandboxCredentials;
  readonly live: SandboxCredentials = randomCredentials('live');
  enabled = true;
  /**
   * Each key's IP allowlist. Sandbox's choice: the sandbox key has none (every caller admitted);
   * live keys must have a non-empty list (spec), loopback by default.
   */
  readonly allowlists: Record<SandboxEnvironment, string[]> = { sandbox: [], live: ['127.0.0.1', '::1'] };
  private readonly tokens = new Map<string, TokenRow>();

  constructor(initial: Partial<SandboxCredentials>) {
    this.credentials = { ...randomCredentials('sbx'), ...initial };
  }

  /**
   * Token exchange credentials, the exchange's only proof (it is unsigned: the signing key is
   * never used for it). Missing, empty and wrong credentials, and a disabled key, share one
   * response (spec: `invalid_credentials`).
   */
  identify(clientId: string | undefined, apiKey: string | undefined): KeyRow {
    const matches = (c: SandboxCredentials): boolean =>
      clientId !== undefined && apiKey !== undefined && safeEqual(clientId, c.clientId) && safeEqual(apiKey, c.apiKey);
    if (this.enabled && matches(this.credentials)) return { environment: 'sandbox', signingKey: this.credentials.signingKey };
    if (matches(this.live)) return { environment: 'live', signingKey: this.live.signingKey };
    return fail('invalid_credentials', 'Invalid client id or API key.');
  }

  /** Issues a token of the key's environment, valid 30 minutes of business time. */
  issue(environment: SandboxEnvironment, now: number): { token: string; expiresAt: number } {
    const token = `tok_${environment === 'live' ? 'live' : 'sbx'}_${hex(24)}`;
    const expiresAt = now + TOKEN_TTL_MS;
    this.tokens.set(token, { expiresAt, environment });
    return { token, expiresAt };
  }

  /**
   * Reads `x-auth-token: Bearer X` (preferred) or `authorization: Bearer X`. Missing,
   * malformed, unknown, expired (by business time) or of a disabled key: `invalid_token`.
   * Returns the key row the token belongs to.
   */
  verify(headers: Record<string, string>, now: number): KeyRow {
    const raw = headers['x-auth-token'] ?? headers['authorization'];
    const match = raw === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(raw);
    const row = match?.[1] === undefined ? undefined : this.tokens.get(match[1]);
    const usable = row !== undefined && row.expiresAt > now && (row.environment === 'live' || this.enabled);
    if (!usable) fail('invalid_token', 'The access token is missing, invalid or expired.');
    return { environment: row.environment, signingKey: this.signingKeyOf(row.environment) };
  }

  /** The signing key of an environment's key. */
  signingKeyOf(environment: SandboxEnvironment): string {
    return environment === 'live' ? this.live.signingKey : this.credentials.signingKey;
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
