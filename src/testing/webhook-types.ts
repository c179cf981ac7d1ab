/** Public types of `sandbox.webhooks`: events, envelopes, delivery records and tuning, and the emitter's own hooks. */

/** `data` of an event: identifiers and status only, plus the event type's extra fields. */
export interface WebhookEventData {
  /** Resource kind, e.g. `card`, `exchange_order`, `card_topup`. */
  object: string;
  /** Resource identifier. */
  id: string;
  /** The member's external id ('' when none). */
  external_member_id?: string;
  /** Resource status. */
  status: string;
  /** Omitted: the next version for this resource (starting at 1). */
  status_version?: number;
  /** Extra fields of the event type (`application_id`, `otp_code`, ...). */
  [extra: string]: unknown;
}

/** The delivered envelope. */
export interface WebhookEnvelope {
  /** `evt_<hex>`, also in `z-event-id`. */
  event_id: string;
  /** Event type, also in `z-event-type`. */
  event_type: string;
  /** ISO 8601. */
  created_at: string;
  /** The sandbox merchant. */
  merchant_id: string;
  /** Always false in the sandbox. */
  livemode: false;
  /** Identifiers and status of the resource. */
  data: WebhookEventData & {
    /** The member's external id ('' when none). */
    external_member_id: string;
    /** Forward-only version of the status. */
    status_version: number;
  };
}

/** One delivery attempt, as logged in `sandbox.webhooks.deliveries`. */
export interface WebhookDelivery {
  /** Event delivered. */
  event_id: string;
  /** Its type. */
  event_type: string;
  /** Receiver URL. */
  url: string;
  /** 1 for the first attempt of this copy. */
  attempt: number;
  /** Receiver's HTTP status, or undefined on timeout or connection error. */
  status: number | undefined;
  /** Timeout or connection error message. */
  error: string | undefined;
  /** Whether the receiver answered 2xx in time. */
  ok: boolean;
  /** The exact bytes sent. */
  body: string;
  /**
   * The headers sent: `content-type`, `z-event-id`, `z-event-type` and `z-signature` (the
   * simulator's signature of `body`), so that a receiver in any language can be checked against
   * what it was given. The webhook secret itself is never in a delivery record.
   */
  headers: Record<string, string>;
}

/** Delivery tuning. The spec shows no retry schedule; these defaults are the simulator's. */
export interface WebhookDeliveryOptions {
  /** Attempts per delivery, including the first (default 5). */
  attempts?: number;
  /** First retry delay in real ms, doubled each retry (default 50). */
  backoffMs?: number;
  /** Per-attempt timeout in real ms (default 10 000, the spec's). */
  timeoutMs?: number;
  /** Replace the HTTP POST (resolves with the receiver's status; rejects on network error). */
  transport?: (url: string, request: { headers: Record<string, string>; body: string; timeoutMs: number }) => Promise<number>;
}

/** Options of {@link SandboxWebhooks.emitBatch}. */
export interface BatchOptions {
  /** Deliver in a random order (`true`) or one drawn from your random source. */
  shuffle?: boolean | (() => number);
  /** Extra copies of each event, same `event_id` (default 0). */
  duplicates?: number;
}

/** Webhook control (`sandbox.webhooks`). */
export interface SandboxWebhooks {
  /** Key of the simulator's `z-signature` (hex HMAC-SHA256 of the raw body). */
  readonly secret: string;
  /** Receiver URLs currently registered. */
  readonly receivers: readonly string[];
  /** Every envelope emitted, in emission order. */
  readonly events: readonly WebhookEnvelope[];
  /** Every delivery attempt. */
  readonly deliveries: readonly WebhookDelivery[];
  /** Registers a receiver; automatic events are emitted only while one is registered. Returns an unregister function. */
  register(url: string): () => void;
  /** Unregisters `url`, or every receiver. */
  unregister(url?: string): void;
  /** Changes delivery tuning. */
  configure(options: WebhookDeliveryOptions): void;
  /** Builds and delivers one event (plus `duplicates` copies); resolves after all attempts. */
  emit(eventType: string, data: WebhookEventData, options?: { duplicates?: number }): Promise<WebhookEnvelope>;
  /** Builds several events and delivers them (optionally shuffled and duplicated) one after another. */
  emitBatch(events: ReadonlyArray<{ event_type: string; data: WebhookEventData }>, options?: BatchOptions): Promise<WebhookEnvelope[]>;
  /** Resolves once every queued delivery (automatic ones included) has finished. */
  flush(): Promise<void>;
  /** The simulator's `z-signature` for a raw body. */
  sign(rawBody: string): string;
  /**
   * Delivers an event emitted earlier again, same envelope and `event_id`, to the receivers
   * registered now; resolves after all attempts. Throws when no event has that id.
   */
  redeliver(eventId: string): Promise<WebhookEnvelope>;
}

/** Internal request to emit from a route. */
export interface EmitRequest {
  event_type: string;
  data: WebhookEventData;
}

/** The emitter plus the hook routes use for automatic events. */
export interface InternalWebhooks extends SandboxWebhooks {
  /** Emits from a route only when a receiver is registered; delivery starts after the response. */
  auto(req: EmitRequest): void;
  /** Forgets receivers, events, deliveries and status versions (`sandbox.reset()`). */
  clear(): void;
}
