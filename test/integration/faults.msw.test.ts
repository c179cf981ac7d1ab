/**
 * Fault matrix, token and clock faults in msw mode: msw 2 intercepts the SDK's fetch transport
 * (a reset is answered with a network error, as msw has no socket to destroy).
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll } from 'vitest';
import { describeAuthAndClock } from './auth-and-clock.js';
import { describeFaultMatrix } from './fault-matrix.js';
import { mswMode } from './harness.js';

const msw = setupServer();
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

const mode = mswMode(msw);
describeAuthAndClock(mode);
describeFaultMatrix(mode);
