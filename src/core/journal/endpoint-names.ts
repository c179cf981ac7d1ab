/**
 * One name per endpoint: the descriptor's id (`member.withdrawals.create`), in journal rows, log
 * lines, spans and metrics alike. Rows written while spans and logs said the shorter name
 * (`withdrawals.create`) are still read: a rolling deploy has both.
 */
import type { EndpointDescriptor } from '../../facts/endpoint.js';
import { ENDPOINTS } from '../../facts/endpoints.js';
import type { JournalIntent } from './intent-journal.js';

/** The endpoint a journal row names, under its id or its name without `member.`; undefined when this SDK version knows neither. */
export function endpointNamed(name: string): EndpointDescriptor<unknown> | undefined {
  // No id equals another's without `member.` (a test checks), so the second lookup is never ambiguous.
  return ENDPOINTS.find((e) => e.id === name) ?? ENDPOINTS.find((e) => e.id === `member.${name}`);
}

/** The intent under its endpoint's one name (itself when it already has it, or names no known endpoint). */
export function underOneName(intent: JournalIntent): JournalIntent {
  const id = endpointNamed(intent.endpoint)?.id;
  return id === undefined || id === intent.endpoint ? intent : Object.freeze({ ...intent, endpoint: id });
}
