// Bundled by suite.mjs (esbuild, zod left external) so that the micro-benchmarks time the SDK's
// own signing code, response schemas and telemetry reporting, not a copy of them.
export { bodySha256, signAttempt } from '../src/core/crypto/signing.js';
export { NodeCryptoSigner } from '../src/core/crypto/node-signer.js';
export { WebCryptoSigner } from '../src/core/crypto/web-signer.js';
export { REPORTS_LIST, WITHDRAWALS_CREATE } from '../src/facts/endpoints.js';
export { createTelemetry } from '../src/core/telemetry/otel.js';
