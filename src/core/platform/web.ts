/**
 * The runtime choices of the build for Bun, Deno, workerd and edge runtimes (see `node.ts`,
 * which this module replaces there): `fetch` only. Bun ships a stub in place of undici, workerd
 * refuses undici's WebAssembly parser, and Deno's permissions stop undici at load.
 */
import { InvalidArgumentError } from '../errors/errors.js';
import type { Transport } from '../transport/transport.js';
import { FetchTransport } from '../transport/fetch.js';
import { type TransportChoice } from './choice.js';

/** The runtime's `fetch` (or the one given); undici is refused with a reason. */
export function createTransport(choice: TransportChoice): Transport {
  if (choice.transport === 'undici' || choice.dispatcher !== undefined) {
    throw new InvalidArgumentError('transport', "undici runs on Node only; this runtime's build uses fetch (leave transport unset).");
  }
  return new FetchTransport(choice.fetch);
}

/** Bun and Deno's `fetch` read the proxy variables themselves; workerd has none: nothing to say. */
export function proxyEnvNotice(_choice: TransportChoice, _origin: string): string | undefined {
  return undefined;
}
