import type { RawRequest } from '../core/pipeline/raw-request.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { CallOptions } from '../core/types.js';
import { fillPath } from '../core/call/url.js';
import { UnsupportedEventResourceError } from './errors.js';
import { dataFieldsOf, type WebhookEvent } from './events.js';

/** How to read the resource of one `data.object` kind. */
export interface EventResourceRoute {
  /** Path template with an `{id}` placeholder (filled with `data.id`, percent-encoded). */
  readonly path: string;
  /** Whether the endpoint is member-scoped: sent with `x-on-behalf-of: data.external_member_id`. */
  readonly memberScoped: boolean;
}

/**
 * Routes from `data.object` to a `GET` endpoint the spec names, per event kind it shows:
 *
 * - `card` → `GET /v1/cards/{id}`, member-scoped like every `/v1/cards/{id}` endpoint.
 *
 * Not routed, because the spec shows no endpoint to read them: `exchange_order`
 * (`POST /v1/exchange/orders` only) and `card_topup` (`POST /v1/cards/{id}/topups` only; an
 * initial top-up `first:<application uuid>` has no `ctp_` row at all). Other kinds are not
 * shown by the spec's events. Pass your own through the `routes` option when you know them.
 */
export const EVENT_RESOURCE_ROUTES: Readonly<Record<string, EventResourceRoute>> = Object.freeze({
  card: Object.freeze({ path: '/v1/cards/{id}', memberScoped: true }),
});

/** The part of the client that {@link fetchEventResource} needs (a `MerchantClient` fits). */
export interface EventResourceClient {
  /** `MerchantClient.request`. */
  request<T = unknown>(req: RawRequest): PromiseLike<T>;
}

/** Options of {@link fetchEventResource}. */
export interface FetchEventResourceOptions {
  /** Extra or replacement routes by `data.object`, over {@link EVENT_RESOURCE_ROUTES}. */
  readonly routes?: Readonly<Record<string, EventResourceRoute>>;
  /** Per-call options (signal, timeout, retries). */
  readonly options?: Omit<CallOptions, 'idempotencyKey'>;
}

/** The route for an event's `data.object`, or `undefined` when none is known. */
export function eventResourceRoute(
  event: WebhookEvent,
  routes?: Readonly<Record<string, EventResourceRoute>>,
): EventResourceRoute | undefined {
  const kind = dataFieldsOf(event).object ?? '';
  if (routes !== undefined && Object.hasOwn(routes, kind)) return routes[kind];
  return Object.hasOwn(EVENT_RESOURCE_ROUTES, kind) ? EVENT_RESOURCE_ROUTES[kind] : undefined;
}

/**
 * Reads the resource an event points at (`GET /v1/<resource>/{id}` by `data.object` and
 * `data.id`), through the client's pipeline (token, retries, typed errors), on behalf of
 * `data.external_member_id` for member-scoped resources.
 *
 * Payloads carry only identifiers and status, never amounts, asset codes or card details
 * (spec, Events): read those from the resource, never from the event. The result is the parsed
 * JSON, unvalidated (the spec does not show the card record's fields); give `T` to type it.
 *
 * @throws UnsupportedEventResourceError when no endpoint is known for `data.object`.
 * @throws InvalidArgumentError when a member-scoped resource's event has no `external_member_id`.
 * @throws ApiError and the client's other errors from the call itself.
 */
export async function fetchEventResource<T = unknown>(
  client: EventResourceClient,
  event: WebhookEvent,
  options: FetchEventResourceOptions = {},
): Promise<T> {
  const { object = '', id = '', external_member_id: member = '' } = dataFieldsOf(event);
  const route = eventResourceRoute(event, options.routes);
  if (route === undefined || id === '') {
    const why =
      id === ''
        ? 'its data carries no id (a non-conforming event)'
        : object === 'card_topup' && id.startsWith('first:')
          ? `${id} is the initial top-up at issuance and has no ctp_ row; read the card (GET /v1/cards/{id}) once your application record gives its id`
          : `the spec shows no GET endpoint for data.object "${object}"`;
    throw new UnsupportedEventResourceError(
      object,
      id,
      `Cannot fetch the resource of ${event.event_type} ${event.event_id}: ${why}. Known kinds: ${Object.keys(EVENT_RESOURCE_ROUTES).join(', ')}; pass options.routes for others.`,
    );
  }
  if (route.memberScoped && member.trim() === '') {
    throw new InvalidArgumentError(
      'event.data.external_member_id',
      `is empty, and ${object} resources are member-scoped (x-on-behalf-of is required).`,
    );
  }
  const path = fillPath(route.path, { id });
  const req: RawRequest = {
    method: 'GET',
    path,
    ...(route.memberScoped ? { onBehalfOf: member } : {}),
    ...(options.options ? { options: options.options } : {}),
  };
  return client.request<T>(req);
}
