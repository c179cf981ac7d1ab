import type { EndpointDescriptor } from '../spec/endpoint.js';
import type { PreparedCall } from './call.js';
import { MalformedResponseError, ResponseValidationError } from './errors.js';
import { tryParseJson } from './response.js';
import type { TransportResponse } from './transport.js';
import type { WithResponse } from './types.js';

/**
 * Turns a 2xx response into the call's result: the JSON body, validated against the endpoint's
 * schema when `validate` is on, with the response metadata (request id, key, replay flag).
 */
export function readResult<T>(
  endpoint: EndpointDescriptor<T>,
  call: PreparedCall,
  response: TransportResponse,
  attempts: number,
  validate: boolean,
): WithResponse<T> {
  const requestId = response.headers['x-request-id'];
  let json: unknown = null;
  if (response.body !== '') {
    json = tryParseJson(response.body);
    if (json === undefined) {
      throw new MalformedResponseError(
        `HTTP ${response.status} with a body that is not JSON${requestId ? ` [request_id ${requestId}]` : ''}.`,
        {
          status: response.status,
          requestId,
          snippet: response.body.slice(0, 200),
          idempotencyKey: call.idempotencyKey,
        },
      );
    }
  }
  let data = json as T;
  if (validate) {
    const parsed = endpoint.response.safeParse(json);
    if (!parsed.success) {
      throw new ResponseValidationError(
        `The response of ${endpoint.id} does not match the documented shape${requestId ? ` [request_id ${requestId}]` : ''}: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
        { requestId, status: response.status, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) },
      );
    }
    data = parsed.data;
  }
  return {
    data,
    response: {
      requestId,
      status: response.status,
      headers: response.headers,
      idempotencyKey: call.idempotencyKey,
      replayed: response.headers['x-idempotent-replay'] === 'true',
      attempts,
    },
  };
}
