/**
 * `POST /__sandbox/credentials/rotate`: the sandbox key's rotation over HTTP, so that a test in
 * any language rehearses one against a served sandbox (the overlap, then the cut on the
 * business clock, which `POST /__sandbox/clock` steps).
 */
import { AdminError, adminJson, numberField, type AdminRoute } from './http.js';
import type { SandboxRotationOptions } from '../sandbox-types.js';
import type { AdminHost } from './views.js';

type Json = Record<string, unknown>;

/** The snake_case body field of each value a caller may fix. */
const GIVEN = { client_id: 'clientId', api_key: 'apiKey', signing_key: 'signingKey' } as const;

/** The rotation the body asks for: `overlap_ms`, `new_client_id`, and values to use instead of generated ones. */
function rotationOf(body: Json): SandboxRotationOptions {
  const overlapMs = numberField(body, 'overlap_ms') ?? 0;
  if (overlapMs < 0) throw new AdminError(400, 'overlap_ms must be 0 or more');
  const newClientId = body['new_client_id'];
  if (newClientId !== undefined && typeof newClientId !== 'boolean') throw new AdminError(400, 'new_client_id must be true or false');
  const options: { -readonly [K in keyof SandboxRotationOptions]: SandboxRotationOptions[K] } = { overlapMs };
  if (newClientId === true) options.newClientId = true;
  for (const [field, name] of Object.entries(GIVEN)) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') throw new AdminError(400, `${field} must be a non-empty string`);
    options[name] = v;
  }
  if (options.newClientId === true && options.clientId !== undefined)
    throw new AdminError(400, 'give client_id or new_client_id, not both');
  return options;
}

/**
 * Rotates and answers the cut and the new values the sandbox generated, once (as the service
 * shows a new api key once). A value given in the body is named in `given`, never echoed, the
 * rule the command's start lines follow; a kept client id is not repeated either.
 */
function rotate(host: AdminHost, body: Json): Json {
  const options = rotationOf(body);
  const before = host.sandbox.credentials.clientId;
  const next = host.sandbox.rotateCredentials(options);
  const answer: Json = {
    prev_valid_until_ms: next.prevValidUntil,
    prev_valid_until: new Date(next.prevValidUntil).toISOString(),
    overlap_ms: Math.trunc(options.overlapMs ?? 0),
    client_id_changed: next.clientId !== before,
  };
  const given: string[] = [];
  for (const [field, name] of Object.entries(GIVEN)) {
    if (options[name] !== undefined) given.push(field);
    else if (name !== 'clientId' || options.newClientId === true) answer[field] = next[name];
  }
  answer['given'] = given;
  return answer;
}

/** The key routes. */
export function keyRoutes(host: AdminHost): AdminRoute[] {
  return [{ method: 'POST', path: '/__sandbox/credentials/rotate', run: (c) => adminJson(200, rotate(host, c.body())) }];
}
