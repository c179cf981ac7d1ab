/** The scenario suite in server mode: node:http on loopback, the default undici transport. */
import { serverMode } from './harness.js';
import { describeScenarios } from './scenarios.js';

describeScenarios(serverMode());
