/**
 * Terminal states per resource kind, only where the spec says which states are terminal
 * (States and transitions):
 *
 * - `remittance`: `completed`, `failed`, `canceled`, `refunded` ("are terminal"). The spec
 *   shows no remittance event, so `remittance` is this SDK's key, not a `data.object` value.
 * - `exchange_order`: `executed` ("terminal, no intermediate state").
 *
 * Not listed, because the spec does not say which of their states are terminal: `card` (states
 * seen include `closed` and `expired`), `card_topup` (`credited` is the only state shown),
 * export reports, KYC and withdrawals. Add your own through `StatusTracker`'s
 * `terminalStates` option if your integration has learned them, e.g.
 * `{ card: ['closed', 'expired'] }`.
 */
export const DEFAULT_TERMINAL_STATES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  remittance: Object.freeze(['completed', 'failed', 'canceled', 'refunded']),
  exchange_order: Object.freeze(['executed']),
});
