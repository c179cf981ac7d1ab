/** Admin routes over the sandbox's controls: faults, the clock, the request log, webhooks. */
import { AdminError, adminJson, numberField, stringField, type AdminRoute } from './http.js';
import type { InjectedFault } from '../faults.js';
import { faultOf, faultView, matchOf, releaseArmed, timesOf } from './faults.js';
import { requestsNewestFirst, requestView, type AdminHost } from './views.js';

type Json = Record<string, unknown>;

function objectField(body: Json, key: string): Json {
  const v = body[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new AdminError(400, `${key} must be an object`);
  return v as Json;
}

/** Both clocks: business time (`now_ms`, `now`) and the signature clock with its skew. */
function clockView(host: AdminHost): Json {
  const { clock } = host.sandbox;
  const now = clock.now();
  const signatureNow = clock.signatureNow();
  return {
    now_ms: now,
    now: new Date(now).toISOString(),
    signature_now_ms: signatureNow,
    signature_now: new Date(signatureNow).toISOString(),
    signature_skew_ms: clock.signatureSkewMs,
  };
}

/** Moves business time by one of `advance_ms`, `set_ms`, `freeze` (true or ms), `unfreeze`; false when none is given. */
function moveBusinessTime(host: AdminHost, body: Json): boolean {
  const { clock } = host.sandbox;
  const advance = numberField(body, 'advance_ms');
  const set = numberField(body, 'set_ms');
  if (advance !== undefined) clock.advance(advance);
  else if (set !== undefined) clock.set(set);
  else if (body['freeze'] === true) clock.freeze();
  else if (typeof body['freeze'] === 'number') clock.freeze(body['freeze']);
  else if (body['unfreeze'] === true) clock.unfreeze();
  else return false;
  return true;
}

/**
 * `POST /__sandbox/clock`: business time (one of `advance_ms`, `set_ms`, `freeze`, `unfreeze`),
 * and/or the signature clock's distance from real time (`signature_skew_ms`, 0 for none).
 */
function moveClock(host: AdminHost, body: Json): Json {
  const skew = numberField(body, 'signature_skew_ms');
  const moved = moveBusinessTime(host, body);
  if (skew !== undefined) host.sandbox.clock.skewSignatures(skew);
  else if (!moved) {
    throw new AdminError(400, 'give one of advance_ms, set_ms, freeze (true or Unix ms), unfreeze: true, and/or signature_skew_ms');
  }
  return clockView(host);
}

function faultRoutes(host: AdminHost, armed: InjectedFault[]): AdminRoute[] {
  const { faults } = host.sandbox;
  return [
    { method: 'GET', path: '/__sandbox/faults', run: () => adminJson(200, { data: faults.list().map(faultView) }) },
    {
      method: 'POST',
      path: '/__sandbox/faults',
      run: (c) => {
        const body = c.body();
        const injected = faults.inject(matchOf(objectField(body, 'match')), faultOf(objectField(body, 'fault')), { times: timesOf(body) });
        if (injected.fault.kind === 'hang') armed.push(injected);
        return adminJson(201, faultView(injected));
      },
    },
    {
      method: 'DELETE',
      path: '/__sandbox/faults',
      run: () => {
        // Held requests are let go first, so clearing never leaves a caller hanging.
        for (const f of faults.list()) void f.release();
        releaseArmed(armed);
        faults.clear();
        return adminJson(200, { data: [] });
      },
    },
  ];
}

function requestRoutes(host: AdminHost): AdminRoute[] {
  const { sandbox } = host;
  return [
    {
      method: 'GET',
      path: '/__sandbox/requests',
      run: (c) => {
        const failed = c.query.get('failed') === 'true';
        const list = requestsNewestFirst(sandbox).filter((r) => !failed || (r.status ?? 0) >= 400);
        return adminJson(200, { data: list });
      },
    },
    {
      method: 'GET',
      path: '/__sandbox/requests/:id',
      run: (c) => {
        const r = sandbox.requests.find((q) => q.requestId === c.params['id']);
        if (!r) throw new AdminError(404, `no request ${c.params['id']} in the log`);
        return adminJson(200, requestView(r));
      },
    },
    {
      method: 'DELETE',
      path: '/__sandbox/requests',
      run: () => {
        sandbox.resetRequests();
        return adminJson(200, { data: [] });
      },
    },
  ];
}

function webhooksView(host: AdminHost): Json {
  const { webhooks } = host.sandbox;
  return { receivers: webhooks.receivers, events: webhooks.events, deliveries: webhooks.deliveries };
}

function webhookRoutes(host: AdminHost): AdminRoute[] {
  const { webhooks } = host.sandbox;
  return [
    { method: 'GET', path: '/__sandbox/webhooks', run: () => adminJson(200, webhooksView(host)) },
    {
      method: 'POST',
      path: '/__sandbox/webhooks/receivers',
      run: (c) => {
        const url = stringField(c.body(), 'url');
        if (!/^https?:\/\//.test(url)) throw new AdminError(400, 'url must be an http:// or https:// URL');
        webhooks.register(url);
        return adminJson(201, { receivers: webhooks.receivers });
      },
    },
    {
      method: 'DELETE',
      path: '/__sandbox/webhooks/receivers',
      run: (c) => {
        webhooks.unregister(c.query.get('url') ?? undefined);
        return adminJson(200, { receivers: webhooks.receivers });
      },
    },
    {
      method: 'POST',
      path: '/__sandbox/webhooks/events',
      run: async (c) => {
        const body = c.body();
        const data = objectField(body, 'data');
        stringField(data, 'object');
        stringField(data, 'id');
        stringField(data, 'status');
        const env = await webhooks.emit(stringField(body, 'event_type'), data as never, {
          duplicates: numberField(body, 'duplicates') ?? 0,
        });
        return adminJson(201, { event: env, deliveries: webhooks.deliveries.filter((d) => d.event_id === env.event_id) });
      },
    },
    {
      method: 'POST',
      path: '/__sandbox/webhooks/events/:id/redeliver',
      run: async (c) => {
        const id = c.params['id'] ?? '';
        if (!webhooks.events.some((e) => e.event_id === id)) throw new AdminError(404, `no event ${id}`);
        const before = webhooks.deliveries.length;
        const env = await webhooks.redeliver(id);
        return adminJson(200, { event: env, deliveries: webhooks.deliveries.slice(before).filter((d) => d.event_id === id) });
      },
    },
  ];
}

/** The control routes. */
export function controlRoutes(host: AdminHost, armed: InjectedFault[]): AdminRoute[] {
  return [
    ...faultRoutes(host, armed),
    { method: 'GET', path: '/__sandbox/clock', run: () => adminJson(200, clockView(host)) },
    { method: 'POST', path: '/__sandbox/clock', run: (c) => adminJson(200, moveClock(host, c.body())) },
    ...requestRoutes(host),
    ...webhookRoutes(host),
  ];
}
