import { fail } from './errors.js';

/** One asset of the sandbox catalogue. */
export interface SandboxAsset {
  /** Asset code, uppercase. */
  code: string;
  /** Decimal places of the ledger; parsing precision. */
  ledger_scale: number;
  /** Decimal places for display only. */
  display_scale: number;
  /** Disabled assets answer `asset_not_allowed`. Default true. */
  enabled?: boolean;
}

/**
 * The default catalogue. The spec gives no per-asset scales; these are the simulator's choice:
 * stablecoins at 6 (2 for display), BTC at 8, ETH at 18 (6 for display).
 */
export const DEFAULT_ASSETS: readonly SandboxAsset[] = [
  { code: 'USDT', ledger_scale: 6, display_scale: 2, enabled: true },
  { code: 'USDC', ledger_scale: 6, display_scale: 2, enabled: true },
  { code: 'BTC', ledger_scale: 8, display_scale: 8, enabled: true },
  { code: 'ETH', ledger_scale: 18, display_scale: 6, enabled: true },
];

/** Resolved asset with `enabled` always set. */
export type AssetDef = Required<SandboxAsset>;

/** The catalogue the service checks assets against. Codes are case-insensitive on input. */
export class AssetTable {
  private readonly byCode = new Map<string, AssetDef>();

  constructor(assets: readonly SandboxAsset[]) {
    for (const a of assets) this.put(a);
  }

  /** Adds or replaces an asset. */
  put(asset: SandboxAsset): void {
    const code = asset.code.toUpperCase();
    this.byCode.set(code, { ...asset, code, enabled: asset.enabled ?? true });
  }

  /** The asset for a code in any case, or undefined. */
  find(code: string): AssetDef | undefined {
    return this.byCode.get(code.toUpperCase());
  }

  /** The asset for a code (any case); throws when unknown (internal use, seeding). */
  get(code: string): AssetDef {
    const a = this.find(code);
    if (!a) throw new Error(`sandbox: unknown asset ${code}`);
    return a;
  }

  /** All assets, in catalogue order. */
  all(): AssetDef[] {
    return [...this.byCode.values()];
  }

  /**
   * Validates a request's asset field: missing or not a string is `invalid_request`; unknown
   * or disabled is `asset_not_allowed` (spec: asset must be in the catalog and enabled).
   */
  requireEnabled(raw: unknown, field = 'asset'): AssetDef {
    if (typeof raw !== 'string' || raw.trim() === '') fail('invalid_request', `${field} is required`);
    const a = this.find(raw);
    if (!a || !a.enabled) fail('asset_not_allowed', `${raw.toUpperCase()} is not allowed`);
    return a;
  }
}
