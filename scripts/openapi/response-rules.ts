/**
 * What the specification states about response shapes that the SDK's zod schemas deliberately do
 * not enforce (a client stays lenient with what it receives: a longer address, a paginated
 * corridor list or a missing `balances` copy must not break a call), written onto the converted
 * components so that the document describes what the service answers. Each rule quotes the spec
 * text it rests on; `npm run check:spec` finds every quote in the spec and checks the facts.
 */
import { KNOWN_ACTION_KINDS } from '../../src/schemas/remittances.js';
import type { JsonSchema } from './type-schema.js';

/** A rule for one field of a component: keywords added, or a schema replacing it, and whether it is required. */
export interface ResponseRule {
  /** Keywords merged into the field's schema. */
  readonly add?: JsonSchema;
  /** A schema replacing the field's (its description kept unless the replacement has one). */
  readonly replace?: JsonSchema;
  /** The field is required at its level. */
  readonly required?: true;
  /** Words of the spec that state the rule (checked to be in the spec by check:spec). */
  readonly spec: string;
}

/** "Static lists use the same envelope with `next_cursor` null and `has_more` false." */
const STATIC_LIST: Readonly<Record<string, ResponseRule>> = {
  next_cursor: {
    replace: { type: 'null', description: 'Always null: the list is not paginated.' },
    spec: 'Static lists use the same envelope with `next_cursor` null and `has_more` false',
  },
  has_more: {
    replace: { type: 'boolean', const: false, description: 'Always false: the list is not paginated.' },
    spec: 'Static lists use the same envelope with `next_cursor` null and `has_more` false',
  },
};

/** The rules, by component name, then field name. */
export const RESPONSE_RULES: Readonly<Record<string, Readonly<Record<string, ResponseRule>>>> = {
  BalancesEnvelope: {
    ...STATIC_LIST,
    balances: {
      replace: {
        type: 'array',
        items: { $ref: '#/components/schemas/BalanceRow' },
        description:
          'Transitional duplicate of `data` (the same rows) until its removal is announced in a changelog. New clients read `data` (the SDK passes `balances` through unvalidated).',
      },
      required: true,
      spec: '`balances` is a transitional duplicate of `data`',
    },
  },
  RemittancesCorridorsResponse: STATIC_LIST,
  WithdrawalOrder: {
    to_address: { add: { maxLength: 200 }, spec: 'Up to 200 characters. Snapshotted unchanged' },
  },
  // A known kind without its fields is not an unknown action: only the other branches may take it.
  UnknownAction: {
    kind: { add: { not: { enum: [...KNOWN_ACTION_KINDS] } }, spec: 'Known kinds: `slippage` and `supplement`' },
  },
};

/** Applies the rules to the components in place; a rule whose component or field is gone fails the build. */
export function applyResponseRules(schemas: Record<string, JsonSchema>): void {
  for (const [component, fields] of Object.entries(RESPONSE_RULES)) {
    const schema = schemas[component];
    const properties = schema?.['properties'] as Record<string, JsonSchema> | undefined;
    if (!schema || !properties) throw new Error(`response rule for ${component}: no such object component`);
    for (const [name, rule] of Object.entries(fields)) {
      const field = properties[name];
      if (!field) throw new Error(`response rule for ${component}.${name}: no such field`);
      const description = field['description'];
      const kept = typeof description === 'string' && rule.replace?.['description'] === undefined ? { description } : {};
      const base = rule.replace ? { ...rule.replace, ...kept } : { ...field };
      properties[name] = { ...base, ...(rule.add ?? {}) };
      const required = (schema['required'] as string[] | undefined) ?? [];
      if (rule.required && !required.includes(name)) schema['required'] = [...required, name];
    }
  }
}
