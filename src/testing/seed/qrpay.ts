/** Seeding QR payments: codes of any kind, and a `blocked_reason` on an asset. */
import { hex } from '../ids.js';
import { FIAT_PER_USD } from '../pricing.js';
import type { QrCode } from '../qr-codes.js';
import type { SandboxState } from '../state-types.js';
import type { SeedQrCodeInput } from '../state-merchant.js';
import { seedDec } from '../store-ops.js';
import { mustMember, type SeedContext } from './context.js';

type QrSeeds = Pick<SandboxState, 'seedQrCode' | 'setQrBlockedReason'>;

const FIELDS = [
  'code_value',
  'payee',
  'currency',
  'amount',
  'amount_editable',
  'min_amount',
  'max_amount',
  'required_payer_fields',
  'scheme',
] as const;

/**
 * Checks the input's fields by type, since it also comes as JSON (`POST /__sandbox/qr-codes`, the
 * seed file) or from JavaScript: an unknown or mistyped field throws with its name.
 */
function checkInput(input: Record<string, unknown>): void {
  const unknown = Object.keys(input).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new Error(`sandbox: unknown QR code field ${unknown.join(', ')} (known: ${FIELDS.join(', ')})`);
  const bad = (key: string, what: string): never => {
    throw new Error(`sandbox: QR code ${key} must be ${what}`);
  };
  for (const key of ['code_value', 'payee', 'currency', 'scheme']) {
    const v = input[key];
    if (v !== undefined && (typeof v !== 'string' || v === '')) bad(key, 'a non-empty string');
  }
  for (const key of ['amount', 'min_amount', 'max_amount']) {
    const v = input[key];
    if (v !== undefined && typeof v !== 'string' && typeof v !== 'number') bad(key, 'a decimal string');
  }
  if (input['amount_editable'] !== undefined && typeof input['amount_editable'] !== 'boolean') bad('amount_editable', 'true or false');
  const fields = input['required_payer_fields'];
  if (fields !== undefined && !(Array.isArray(fields) && fields.every((f) => typeof f === 'string'))) {
    bad('required_payer_fields', 'a list of strings');
  }
}

/** The decoded code of a seeding input; a typo in a test throws. */
function seededCode(input: SeedQrCodeInput): QrCode {
  checkInput(input as Record<string, unknown>);
  const currency = (input.currency ?? 'SGD').toUpperCase();
  if (FIAT_PER_USD[currency] === undefined) throw new Error(`sandbox: no fiat rate for ${currency}`);
  const editable = input.amount_editable ?? input.amount === undefined;
  if (!editable && input.amount === undefined) throw new Error('sandbox: a fixed-amount QR code needs an amount');
  return {
    scheme: input.scheme ?? 'SANDBOX',
    payee: input.payee ?? 'Sandbox Shop',
    currency,
    amount: editable ? null : seedDec(input.amount).toFixed(2),
    amount_editable: editable,
    required_payer_fields: [...(input.required_payer_fields ?? [])],
    minAmount: input.min_amount === undefined ? undefined : seedDec(input.min_amount),
    maxAmount: input.max_amount === undefined ? undefined : seedDec(input.max_amount),
  };
}

/** The QR seeders of `sandbox.state`. */
export function qrSeeds({ store }: SeedContext): QrSeeds {
  return {
    seedQrCode(input = {}) {
      const code = input.code_value ?? `sbxqr-seeded:${hex(8)}`;
      store.qrCodes.set(code, seededCode(input));
      return code;
    },
    setQrBlockedReason(asset, reason, member) {
      const code = store.assets.get(asset).code;
      const key = member === undefined ? code : `${code}|${mustMember(store, member).id}`;
      if (reason === null || reason === '') store.qrBlocked.delete(key);
      else store.qrBlocked.set(key, reason);
    },
  };
}
