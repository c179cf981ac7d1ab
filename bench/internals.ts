// Bundled by suite.mjs (esbuild, zod left external) so that the micro-benchmarks time the SDK's
// own signing code, response schemas and telemetry reporting, not a copy of them.
export { sha256Hex, signAttempt } from '../src/core/signing.js';
export { REPORTS_LIST, WITHDRAWALS_CREATE } from '../src/spec/endpoints.js';
export { createTelemetry } from '../src/core/otel.js';
