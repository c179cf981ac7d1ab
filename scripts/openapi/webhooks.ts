/**
 * The document's `webhooks`: one POST per known event type, the envelope typed and the `data` of
 * the events whose payload the spec shows (`src/webhooks/schemas.ts`).
 */
import { KNOWN_EVENT_TYPES } from '../../src/webhooks/event-types.js';
import * as webhookSchemas from '../../src/webhooks/schemas.js';
import type { SchemaComponents } from './components.js';
import type { ZodLike } from './schema-docs.js';
import { docOf, type SourceIndex } from './source-index.js';

/** The `webhooks` object. */
export function webhooks(components: SchemaComponents, webhookRoots: Map<string, ZodLike>, envelope: ZodLike, index: SourceIndex) {
  const file = index.abs('src/webhooks/schemas.ts');
  const out: Record<string, unknown> = {};
  for (const type of KNOWN_EVENT_TYPES) {
    const data = webhookRoots.get(type);
    const constant = Object.entries(webhookSchemas as Record<string, unknown>).find(([, v]) => v === data)?.[0];
    const found = constant ? index.resolve(file, constant) : undefined;
    const schema = {
      allOf: [
        components.ref(envelope),
        { type: 'object', properties: { event_type: { const: type }, ...(data ? { data: components.ref(data) } : {}) } },
      ],
    };
    out[type] = {
      post: {
        operationId: `event_${type.replace(/\./g, '_')}`,
        summary: type,
        description:
          (found ? docOf(found.node) : undefined) ??
          'Named by the specification without a payload shape: the envelope is typed, `data` passes through.',
        parameters: [
          {
            name: 'z-event-id',
            in: 'header',
            required: true,
            description: 'Deduplicate on it: deliveries are at least once.',
            schema: { type: 'string' },
          },
          { name: 'z-event-type', in: 'header', required: true, schema: { type: 'string', const: type } },
          {
            name: 'z-signature',
            in: 'header',
            required: true,
            description: 'Signature of the delivery; its procedure is not shown by the specification.',
            schema: { type: 'string' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        // The receiver authenticates the sender by `z-signature`, whose procedure is not shown.
        security: [],
        responses: {
          '2XX': { description: 'Any 2xx acknowledges the delivery.' },
          default: { description: 'A non-2xx answer (or no answer within 10 seconds) is redelivered with backoff.' },
        },
      },
    };
  }
  return out;
}
