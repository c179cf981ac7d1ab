/** Webhook deliveries as the service sends them (spec, Events): the envelope and its headers. */

/** The body and headers of one delivery of event `eventId`. */
export function delivery(eventId: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    event_id: eventId,
    event_type: 'card.activated',
    created_at: '2026-09-01T10:00:00Z',
    merchant_id: 'mch_x',
    livemode: false,
    data: { object: 'card', id: `crd_${eventId}`, external_member_id: 'ext-1', status: 'active', status_version: 1 },
  });
  return { body, headers: { 'content-type': 'application/json', 'z-event-id': eventId, 'z-event-type': 'card.activated' } };
}

/** POSTs one delivery to a receiver's URL; the status, or 0 when no answer came (the receiver died). */
export async function post(url: string, eventId: string): Promise<number> {
  const { body, headers } = delivery(eventId);
  try {
    const res = await fetch(url, { method: 'POST', body, headers });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
