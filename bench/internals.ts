// Bundled by suite.mjs (esbuild, zod left external) so that the micro-benchmarks time the SDK's
// own signing code and response schemas, not a copy of them.
export { sha256Hex, signAttempt } from '../src/core/signing.js';
export { REPORTS_LIST, WITHDRAWALS_CREATE } from '../src/spec/endpoints.js';
