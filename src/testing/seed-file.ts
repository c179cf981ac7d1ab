/**
 * A whole seed as data (`createSandbox({ seed })`, the CLI's `--seed file.json`, `POST
 * /__sandbox/seed`): card products, members with balances, cards, reports and QR codes, applied
 * through `sandbox.state` in that order, so cards can name members by their external id.
 */
import type { ReportSnapshot } from './state-merchant.js';
import type { SandboxState } from './state-types.js';
import type { SeedCardInput, SeedCardProductInput } from './state-cards.js';
import type { SeedMemberInput } from './state-members.js';
import type { SeedQrCodeInput } from './state-merchant.js';

/** A seed as JSON data. */
export interface SandboxSeed {
  /** Card products to add to the default catalogue (`state.seedCardProduct`). */
  products?: SeedCardProductInput[];
  /** Members to create, in order (balances per asset and bucket, KYC level, status). */
  members?: SeedMemberInput[];
  /** Cards to create; each names its member by id or external id. */
  cards?: SeedCardInput[];
  /** Reports to create, with any status (`created_at_ms` places them in time). */
  reports?: Array<
    Partial<ReportSnapshot> & {
      /** Creation time in sandbox Unix ms (default: now). */
      created_at_ms?: number;
    }
  >;
  /** QR codes to register (`state.seedQrCode`): give each a `code_value` to know its payload in advance. */
  qr_codes?: SeedQrCodeInput[];
}

const KEYS = new Set(['products', 'members', 'cards', 'reports', 'qr_codes']);

function listOf(seed: Record<string, unknown>, key: string): Array<Record<string, unknown>> {
  const value = seed[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`seed: ${key} must be an array`);
  value.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Error(`seed: ${key}[${i}] must be an object`);
  });
  return value as Array<Record<string, unknown>>;
}

/** Checks the seed's shape (not each field, which the seeders check) and names the first fault. */
export function checkSeed(value: unknown): SandboxSeed {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('seed: must be a JSON object');
  const seed = value as Record<string, unknown>;
  const unknown = Object.keys(seed).filter((k) => !KEYS.has(k));
  if (unknown.length > 0) throw new Error(`seed: unknown key ${unknown.join(', ')} (known: ${[...KEYS].join(', ')})`);
  for (const key of KEYS) listOf(seed, key);
  return seed;
}

/** What applying a seed created. */
export interface SeedResult {
  /** Card product ids, in seed order. */
  products: string[];
  /** Member ids, in seed order. */
  members: string[];
  /** Card ids, in seed order. */
  cards: string[];
  /** Report ids, in seed order. */
  reports: string[];
  /** QR code payloads (`code_value`), in seed order. */
  qr_codes: string[];
}

/** Applies a checked seed through the seeding API; a seeder's error names the entry. */
export function applySeed(state: SandboxState, seed: SandboxSeed): SeedResult {
  const at = <T>(what: string, i: number, run: () => T): T => {
    try {
      return run();
    } catch (e) {
      throw new Error(`seed: ${what}[${i}]: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
  return {
    products: (seed.products ?? []).map((p, i) => at('products', i, () => state.seedCardProduct(p))),
    members: (seed.members ?? []).map((m, i) => at('members', i, () => state.seedMember(m).id)),
    cards: (seed.cards ?? []).map((c, i) => at('cards', i, () => state.seedCard(c).id)),
    reports: (seed.reports ?? []).map((r, i) => at('reports', i, () => state.seedReport(r).id)),
    qr_codes: (seed.qr_codes ?? []).map((q, i) => at('qr_codes', i, () => state.seedQrCode(q))),
  };
}
