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
  /** The sandbox key generation the token was issued to (rotations count up); 0 for live. */
  generation: number;
}

/** A key identified by its credentials at token exchange, or by a token it was issued. */
export interface KeyRow {
  readonly environment: SandboxEnvironment;
  readonly signingKey: string;
  /** The key's api key (the signature diagnosis tells a request signed with it). */
  readonly apiKey: string;
  /** The sandbox key generation (0 for live). */
  readonly generation: number;
}

/** What {@link KeyRing.rotate} takes: new values (generated when absent) and the overlap. */
export interface RotationInput extends Partial<SandboxCredentials> {
  /** How long the old key and its tokens stay valid, in business-clock ms (0: cut at once). */
  readonly overlapMs?: number;
  /** Generate a new client id too (default: keep it, unless `clientId` is given). */
  readonly newClientId?: boolean;
}

/** The rotated-out key during its overlap. */
interface PreviousKey {
  readonly credentials: SandboxCredentials;
  readonly generation: number;
  /** Business-clock ms at which it stops (spec: `prev_valid_until`, no grace). */
  readonly validUntil: number;
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
  /** The key in its rotation overlap, if any. */
  private previous: PreviousKey | undefined;
  private generation = 1;
  private readonly initial: SandboxCredentials;
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
    this.initial = { ...this.credentials };
  }

  /** The sandbox key's row of `generation` when it is usable at `now` (current, or previous before its cut). */
  private sandboxRow(generation: number, now: number): KeyRow | undefined {
    if (!this.enabled) return undefined;
    if (generation === this.generation) return this.rowOf(this.credentials, generation);
    const prev = this.previous;
    // The cut has no grace: at `validUntil` exactly the old key is refused.
    if (prev !== undefined && prev.generation === generation && now < prev.validUntil) return this.rowOf(prev.credentials, generation);
    return undefined;
  }

  private rowOf(c: SandboxCredentials, generation: number): KeyRow {
    return { environment: generation === 0 ? 'live' : 'sandbox', signingKey: c.signingKey, apiKey: c.apiKey, generation };
  }

  /**
   * Token exchange credentials, the exchange's only proof (it is unsigned: the signing key is
   * never used for it). Missing, empty and wrong credentials, and a disabled key, share one
   * response (spec: `invalid_credentials`).
   */
  identify(clientId: string | undefined, apiKey: string | undefined, now: number): KeyRow {
    const matches = (c: SandboxCredentials): boolean =>
      clientId !== undefined && apiKey !== undefined && safeEqual(clientId, c.clientId) && safeEqual(apiKey, c.apiKey);
    if (matches(this.credentials)) {
      const row = this.sandboxRow(this.generation, now);
      if (row) return row;
    }
    if (this.previous !== undefined && matches(this.previous.credentials)) {
      const row = this.sandboxRow(this.previous.generation, now);
      if (row) return row;
    }
    if (matches(this.live)) return this.rowOf(this.live, 0);
    return fail('invalid_credentials', 'Invalid client id or API key.');
  }

  /** Issues a token to the key, valid 30 minutes of business time (and while its key is). */
  issue(key: KeyRow, now: number): { token: string; expiresAt: number } {
    const token = `tok_${key.environment === 'live' ? 'live' : 'sbx'}_${hex(24)}`;
    const expiresAt = now + TOKEN_TTL_MS;
    this.tokens.set(token, { expiresAt, environment: key.environment, generation: key.generation });
    return { token, expiresAt };
  }

  /**
   * Reads `x-auth-token: Bearer X` (preferred) or `authorization: Bearer X`. Missing,
   * malformed, unknown, expired (by business time), of a disabled key or of a key rotated out
   * past its cut: `invalid_token`. Returns the key row the token was issued to, whose signing
   * key verifies the request's signature (a token and its signing key are one pair).
   */
  verify(headers: Record<string, string>, now: number): KeyRow {
    const raw = headers['x-auth-token'] ?? headers['authorization'];
    const match = raw === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(raw);
    const row = match?.[1] === undefined ? undefined : this.tokens.get(match[1]);
    const key =
      row === undefined || row.expiresAt <= now
        ? undefined
        : row.environment === 'live'
          ? this.rowOf(this.live, 0)
          : this.sandboxRow(row.generation, now);
    if (key === undefined) return fail('invalid_token', 'The access token is missing, invalid or expired.');
    return key;
  }

  /** Invalidates every issued token. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /**
   * Rotates the sandbox key: new api key and signing key (and client id when asked), generated
   * unless given. The old key and the tokens issued to it stay valid for `overlapMs` of business
   * time and stop at the cut, with no grace (spec: `prev_valid_until`). A key already in its
   * overlap stops at once: one key has one previous key. Returns the cut (business-clock ms).
   */
  rotate(next: RotationInput, now: number): number {
    const overlapMs = next.overlapMs ?? 0;
    if (!Number.isFinite(overlapMs) || overlapMs < 0) throw new Error('sandbox: overlapMs must be a finite number of ms, 0 or more');
    if (next.newClientId === true && next.clientId !== undefined) throw new Error('sandbox: give clientId or newClientId, not both');
    const validUntil = now + Math.trunc(overlapMs);
    this.previous = { credentials: this.credentials, generation: this.generation, validUntil };
    this.generation += 1;
    this.credentials = {
      clientId: next.clientId ?? (next.newClientId === true ? `cli_sbx_${hex(8)}` : this.credentials.clientId),
      apiKey: next.apiKey ?? `ak_sbx_${hex(16)}`,
      signingKey: next.signingKey ?? `sk_sbx_${hex(16)}`,
    };
    return validUntil;
  }

  /** Back to the initial credentials, without a previous key (`reset()`); tokens are revoked. */
  restore(): void {
    this.credentials = { ...this.initial };
    this.previous = undefined;
    this.generation += 1;
    this.revokeTokens();
  }
}
