/**
 * The limits the specification states on request fields, as data: what the parameter types of
 * `src/resources` cannot say (a length, a pattern, a positive amount, an enum the service leaves
 * open). Each rule quotes the spec text it comes from; `npm run check:spec` finds every quote in
 * the spec and checks the document against the spec's own tables field by field.
 *
 * Amounts: a request amount is `UnsignedDecimalString` (a decimal string, no sign) unless its row
 * says more (`PositiveDecimalString` where the spec says "positive" or "greater than 0"). Response
 * amounts stay `DecimalString`, which admits a sign: the spec does not promise a response amount
 * is positive.
 */
import type { JsonSchema } from './type-schema.js';

const REF = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** A rule for one field: the keywords it adds (or the schema it replaces) and the spec text it rests on. */
export interface FieldRule {
  /** Keywords merged into the field's schema. */
  readonly add?: JsonSchema;
  /** A schema replacing the field's (its description is kept). */
  readonly replace?: JsonSchema;
  /** Words of the spec that state the rule (checked to be in the spec by check:spec). */
  readonly spec: string;
}

/** The rules of one operation. */
export interface OperationRules {
  readonly body?: Readonly<Record<string, FieldRule>>;
  readonly query?: Readonly<Record<string, FieldRule>>;
  /** Keywords merged into the body schema itself (a `not` on a field's presence). */
  readonly bodyAdd?: { readonly add: JsonSchema; readonly spec: string };
  /** Optional request headers the service reads (`Accept-Language` on the agreement), by name. */
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly spec: string }>>;
}

/** "missing or empty required fields" answer `invalid_request` (Code catalogue). */
const NON_EMPTY: FieldRule = { add: { minLength: 1 }, spec: 'Malformed JSON, missing or empty required fields' };
const POSITIVE = (spec: string): FieldRule => ({ replace: REF('PositiveDecimalString'), spec });

/**
 * Positive, at most 20 integer digits (leading zeros not counted) and 12 decimals, written without
 * a look-ahead so that every regex engine (RE2 included) reads it: a non-zero integer part, or a
 * zero one whose decimals hold a non-zero digit within the first 12.
 */
function topupAmountPattern(): string {
  const zeros = (k: number) => (k === 0 ? '' : k === 1 ? '0' : `0{${k}}`);
  const rest = (k: number) => (k === 11 ? '' : `[0-9]{0,${11 - k}}`);
  const fraction = Array.from({ length: 12 }, (_, k) => `${zeros(k)}[1-9]${rest(k)}`).join('|');
  return `^(0*[1-9][0-9]{0,19}(\\.[0-9]{1,12})?|0+\\.(${fraction}))$`;
}

/** Positive and at most 1,000,000 whole units. */
const FAUCET_AMOUNT_PATTERN = '^(0*[1-9][0-9]{0,5}(\\.[0-9]+)?|0*1000000(\\.0+)?|0+\\.[0-9]*[1-9][0-9]*)$';

/** `0` (no limit at this layer), or at least one currency unit. */
const CARD_LIMIT_PATTERN = '^(0+(\\.0+)?|0*[1-9][0-9]*(\\.[0-9]+)?)$';

/** The rules, by `METHOD /path`. */
export const REQUEST_RULES: Readonly<Record<string, OperationRules>> = {
  'POST /v1/withdrawals': {
    body: {
      asset: NON_EMPTY,
      amount: POSITIVE('Greater than 0, fixed-point'),
      to_address: { add: { minLength: 1, maxLength: 200 }, spec: 'At most 200 characters' },
    },
  },
  'POST /v1/qrpay/quotes': {
    body: {
      code_value: NON_EMPTY,
      funding_source: { add: { default: 'member' }, spec: 'Default `member`. `merchant` only in merchant-hosted mode' },
      payer: { add: { additionalProperties: true }, spec: 'Unknown keys are discarded' },
    },
  },
  'POST /v1/merchant/conversions': {
    body: {
      from_asset: NON_EMPTY,
      to_asset: NON_EMPTY,
      from_amount: POSITIVE('Positive, decimals up to `ledger_scale` of `from_asset`'),
    },
    bodyAdd: {
      add: {
        not: { required: ['quote_id'] },
        'x-refused-fields': ['quote_id'],
      },
      spec: 'Any presence of the key, including empty string or null, returns 400 `quote_lock_unsupported`',
    },
  },
  'POST /v1/merchant/topups': {
    body: {
      asset: NON_EMPTY,
      amount: {
        replace: { type: 'string', pattern: topupAmountPattern() },
        spec: 'Positive decimal string, at most 20 integer digits and 12 decimal places',
      },
      channel: {
        replace: { type: 'string', 'x-extensible-enum': ['chain', 'fiat'] },
        spec: 'Everything else, including omission and case variants, becomes `chain` silently',
      },
      reference_no: { add: { maxLength: 64 }, spec: 'Maximum 64 characters' },
    },
  },
  'POST /v1/cards/{id}/activate': {
    body: {
      expiry: { add: { pattern: '^(0[1-9]|1[0-2])/[0-9]{2}$' }, spec: 'Printed expiry date, format `MM/YY`' },
      pin: NON_EMPTY,
    },
  },
  'POST /v1/sandbox/faucet': {
    body: {
      asset: NON_EMPTY,
      amount: {
        replace: { type: 'string', pattern: FAUCET_AMOUNT_PATTERN },
        spec: 'Maximum 1,000,000 whole units per request',
      },
    },
  },
  'PATCH /v1/cards/{id}/limits': {
    body: {
      single: { replace: { type: 'string', pattern: CARD_LIMIT_PATTERN }, spec: 'A value below one currency unit is rejected' },
      daily: { replace: { type: 'string', pattern: CARD_LIMIT_PATTERN }, spec: 'A value below one currency unit is rejected' },
      monthly: { replace: { type: 'string', pattern: CARD_LIMIT_PATTERN }, spec: 'A value below one currency unit is rejected' },
    },
  },
  'GET /v1/remit/corridors': {
    query: {
      line: {
        replace: { type: 'string', 'x-extensible-enum': ['express', 'pobo'] },
        spec: 'Unrecognized values are treated as `express`',
      },
    },
  },
  'GET /v1/remit/vp/agreement': {
    headers: {
      'Accept-Language': {
        description:
          'Read when `lang` is omitted (unconfigured languages fall back through `en`, then `zh-Hans`). With the SDK: `options.headers`.',
        spec: 'When omitted, `Accept-Language` is used',
      },
    },
  },
  'GET /v1/remit/swift-search': {
    query: {
      q: NON_EMPTY,
      country: { add: { pattern: '^[A-Z]{2}$' }, spec: 'Two-letter uppercase code' },
    },
  },
};

/** Applies a field rule to the field's schema (its description kept). */
export function applyRule(schema: JsonSchema, rule: FieldRule): JsonSchema {
  const description = schema['description'];
  const base = rule.replace ? { ...rule.replace } : { ...schema };
  return { ...base, ...(rule.add ?? {}), ...(typeof description === 'string' ? { description } : {}) };
}

/** The request-side decimal components. */
export const REQUEST_DECIMALS: Readonly<Record<string, JsonSchema>> = {
  UnsignedDecimalString: {
    type: 'string',
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description: 'A request amount: a decimal string without sign, never a number.',
  },
  PositiveDecimalString: {
    type: 'string',
    pattern: '^(0*[1-9][0-9]*(\\.[0-9]+)?|0+\\.[0-9]*[1-9][0-9]*)$',
    description: 'A request amount the spec says is positive: a decimal string greater than 0, without sign, never a number.',
  },
};
