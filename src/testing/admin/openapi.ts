/**
 * `GET /__sandbox/openapi.json`: the OpenAPI 3.1 document the package ships (`openapi.json`,
 * written by `npm run openapi` from the client's tables), so a team in any language can generate
 * a client from the server it tests against. Loaded on the first request only: the build puts it
 * in a chunk of its own, and a sandbox that is never asked for it never parses it. It is data the
 * sandbox serves, not code it runs: the simulator still shares nothing with the client.
 */
import { adminJson } from './http.js';
import type { SandboxResponse } from '../responses.js';

let document: Promise<unknown> | undefined;

/** The answer of `GET /__sandbox/openapi.json`. */
export async function openApiResponse(): Promise<SandboxResponse> {
  document ??= import('../../../openapi.json', { with: { type: 'json' } }).then((m: { default: unknown }) => m.default);
  return adminJson(200, await document);
}
