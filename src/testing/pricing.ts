/**
 * The sandbox's fixed price list (simulator-invented; the spec shows no prices). Used by
 * merchant conversions, member exchange and QR quotes so results are predictable in tests.
 */
import { Decimal, type Dec } from './money.js';

/** One direction of the merchant conversion price list. */
export interface ConversionPair {
  from: string;
  to: string;
  enabled: boolean;
  fee_rate: Dec;
  fee_side: 'from' | 'to';
  min_from_amount: Dec | undefined;
  max_from_amount: Dec | undefined;
  rate: Dec | undefined;
}

/** USD value of one unit of each asset. Unlisted assets are priced at 1 USD. */
const ASSET_USD: Readonly<Record<string, string>> = {
  USDT: '1',
  USDC: '1',
  BTC: '60000',
  ETH: '3000',
};

/** Fiat units per 1 USD, for QR payments and remittance quotes. */
export const FIAT_PER_USD: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '0.92',
  GBP: '0.79',
  SGD: '1.35',
  HKD: '7.8',
  JPY: '150',
  THB: '36',
  PHP: '56',
  CNY: '7.2',
  VND: '25000',
};

/** Default conversion fee: 0.1 %, charged in the `to` asset. */
const DEFAULT_CONVERSION_FEE_RATE = '0.001';

/** Price of one `from` in `to`, to 18 significant digits (the published `rate`). */
export function rateOf(from: string, to: string): Dec {
  const f = new Decimal(ASSET_USD[from] ?? '1');
  const t = new Decimal(ASSET_USD[to] ?? '1');
  return f.div(t).toSignificantDigits(18);
}

/** `amount` of `from` expressed in `to`, at full precision (round only the final result). */
export function convert(amount: Dec, from: string, to: string): Dec {
  return amount.mul(new Decimal(ASSET_USD[from] ?? '1')).div(new Decimal(ASSET_USD[to] ?? '1'));
}

/** USD value of a fiat amount. */
export function fiatToUsd(amount: Dec, currency: string): Dec {
  return amount.div(new Decimal(FIAT_PER_USD[currency] ?? '1'));
}

/** Units of `asset` worth `usd`. */
export function usdToAsset(usd: Dec, asset: string): Dec {
  return usd.div(new Decimal(ASSET_USD[asset] ?? '1'));
}

/** Every ordered pair of distinct assets, enabled, 0.1 % fee on the `to` side. */
export function defaultPairs(codes: readonly string[]): Map<string, ConversionPair> {
  const pairs = new Map<string, ConversionPair>();
  for (const from of codes) {
    for (const to of codes) {
      if (from === to) continue;
      pairs.set(`${from}>${to}`, {
        from,
        to,
        enabled: true,
        fee_rate: new Decimal(DEFAULT_CONVERSION_FEE_RATE),
        fee_side: 'to',
        min_from_amount: undefined,
        max_from_amount: undefined,
        rate: undefined,
      });
    }
  }
  return pairs;
}
