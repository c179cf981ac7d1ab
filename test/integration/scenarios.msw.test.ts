/** The scenario suite in msw mode: msw 2 intercepts the SDK's fetch transport. */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll } from 'vitest';
import { mswMode } from './harness.js';
import { describeScenarios } from './scenarios.js';

// One msw server per process; each test's world swaps in its own sandbox's handlers.
const msw = setupServer();
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

describeScenarios(mswMode(msw));
