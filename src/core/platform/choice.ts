import type { FetchFunction } from '../transport/fetch.js';
import type { UndiciDispatcher } from '../transport/dispatcher.js';

/** The client options that choose a transport. */
export interface TransportChoice {
  readonly transport?: 'undici' | 'fetch' | undefined;
  readonly fetch?: FetchFunction | undefined;
  readonly dispatcher?: UndiciDispatcher | undefined;
}

/** `transport: 'fetch'`, or a `fetch` given without naming a transport. */
export function wantsFetch(choice: TransportChoice): boolean {
  return choice.transport === 'fetch' || (choice.transport === undefined && choice.fetch !== undefined);
}
