/**
 * QR payloads the sandbox understands (simulator conventions; the spec shows no payload format):
 *
 * - codes seeded with `sandbox.state.seedQrCode()` (over HTTP: `POST /__sandbox/qr-codes`, the
 *   seed file's `qr_codes`), any payee, currency, fixed or custom amount, with optional bounds of a
 *   custom amount and `required_payer_fields`;
 * - `sbxqr:<payee>:<CURRENCY>:<amount>`, a fixed-amount code, and `sbxqr:<payee>:<CURRENCY>:open`,
 *   a custom-amount code (`amount_editable: true`);
 * - `sbxqr-payer:...`, the same with `required_payer_fields`;
 * - payloads starting with `000201` (EMVCo): a fixed 100.00 THB code from "Sandbox Cafe".
 *
 * Anything else is 400 `qr_code_invalid`. docs/sandbox-server.md ("QR codes") documents the same list.
 */
import { fail } from './errors.js';
import type { Dec } from './money.js';
import { FIAT_PER_USD } from './pricing.js';

/** A decoded QR code. */
export interface QrCode {
  scheme: string;
  payee: string;
  currency: string;
  /** The fixed amount, or null for a custom-amount code. */
  amount: string | null;
  amount_editable: boolean;
  required_payer_fields: string[];
  /** Bounds of a custom amount (`amount_out_of_range` outside them). */
  minAmount: Dec | undefined;
  maxAmount: Dec | undefined;
}

const CONVENTION = /^(sbxqr|sbxqr-payer):([^:]+):([A-Z]{3}):(open|\d+(?:\.\d+)?)$/;

/** A code of the `sbxqr` convention, or undefined. */
function conventional(code: string): QrCode | undefined {
  const m = CONVENTION.exec(code);
  if (!m || FIAT_PER_USD[m[3] ?? ''] === undefined) return undefined;
  const open = m[4] === 'open';
  return {
    scheme: 'SANDBOX',
    payee: m[2] ?? '',
    currency: m[3] ?? '',
    amount: open ? null : (m[4] ?? null),
    amount_editable: open,
    required_payer_fields: m[1] === 'sbxqr-payer' ? ['custName', 'mobile'] : [],
    minAmount: undefined,
    maxAmount: undefined,
  };
}

/** Decodes a payload: seeded codes first, then the conventions above. */
export function decodeQr(seeded: ReadonlyMap<string, QrCode>, code: string): QrCode {
  const known = seeded.get(code);
  if (known) return known;
  if (code.startsWith('000201')) {
    const base = { payee: 'Sandbox Cafe', currency: 'THB', amount: '100.00', amount_editable: false, required_payer_fields: [] };
    return { scheme: 'EMVCO', ...base, minAmount: undefined, maxAmount: undefined };
  }
  return conventional(code) ?? fail('qr_code_invalid', 'The QR code cannot be decoded.');
}

/** `POST /v1/qrpay/decode` body (simulator-invented shape; the spec names the two flags). */
export function decodedView(d: QrCode): Record<string, unknown> {
  return {
    scheme: d.scheme,
    payee: d.payee,
    currency: d.currency,
    amount: d.amount,
    amount_editable: d.amount_editable,
    required_payer_fields: [...d.required_payer_fields],
  };
}
