/**
 * msw handlers for the sandbox: `merchant-stablecoin/testing/msw`, the only module that touches
 * msw (2 or 3, an optional peer). It lives in its own entry so that `merchant-stablecoin/testing`
 * and its types need no msw: a suite that uses `sandbox.listen()` or `sandbox.client()` never
 * installs it.
 *
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createSandbox } from 'merchant-stablecoin/testing';
 * import { mswHandlers } from 'merchant-stablecoin/testing/msw';
 *
 * const sandbox = createSandbox();
 * const server = setupServer(...mswHandlers(sandbox));
 * ```
 *
 * @packageDocumentation
 */
export { mswHandlers } from './msw-handlers.js';
export type { MswHandlerOptions, MswSandbox, SandboxHandlers } from './msw-handlers.js';
