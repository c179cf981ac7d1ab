/**
 * Fault matrix, token and clock faults in server mode: the simulator behind node:http on
 * loopback, the SDK on its default undici transport, real sockets (resets destroy the socket).
 */
import { describeAuthAndClock } from './auth-and-clock.js';
import { describeFaultMatrix } from './fault-matrix.js';
import { serverMode } from './harness.js';

const mode = serverMode();
describeAuthAndClock(mode);
describeFaultMatrix(mode);
