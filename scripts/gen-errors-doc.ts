/**
 * Generates `docs/errors.md` from the error catalogue in `src/facts/error-codes.ts` (and the
 * endpoint overrides in `src/facts/endpoints.ts`), so the doc cannot drift from the code.
 *
 *   npx tsx scripts/gen-errors-doc.ts           writes docs/errors.md
 *   npx tsx scripts/gen-errors-doc.ts --check   exits 1 when the committed file differs
 *
 * `test/docs/errors-doc.test.ts` makes the same comparison in the test suite.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_ACTIONS } from '../src/facts/error-actions.js';
import { ERROR_CODES, ERROR_TYPES, type ErrorCode, type RetryClass } from '../src/facts/error-codes.js';
import { ENDPOINTS, INTERNAL_ENDPOINT_IDS } from '../src/facts/endpoints.js';
import { sdkCall } from './gen-endpoints-doc.js';
import { retryClassFor } from '../src/core/errors/retry-class.js';

/** Where the generated page lives. */
export const DOC_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

/** What each retry class means for the caller, and what the SDK does on its own. */
export const RETRY_CLASS_TEXT: Readonly<Record<RetryClass, { sdk: string; you: string }>> = {
  same_key: {
    sdk: 'Retried automatically (up to `maxRetries`, default 2) with the same idempotency key and a fresh nonce, exponential backoff with jitter.',
    you: 'If it still fails, call again later **with the same key** (`err.idempotencyKey`): a new key could execute the operation twice.',
  },
  after_wait: {
    sdk: 'Waits `Retry-After` (header, or `retry_after` in either envelope shape) up to `maxRetryAfterMs` (default 60 s), pausing the other calls of the same rate-limit bucket, then retries with the same key.',
    you: 'When it surfaces, the wait was longer than `maxRetryAfterMs` or retries ran out: slow down and retry later with the same key.',
  },
  new_key: {
    sdk: 'Never retried automatically: the service stored the failure under the key, so the same key only replays it.',
    you: 'Correct the input, fund the account or wait, then call again **with a new key** (omit `idempotencyKey` and the SDK generates one).',
  },
  never: {
    sdk: "Never retried automatically (the spec's do-not-retry list, every 404, key reuse).",
    you: 'Do not retry. Fix the cause first (scope, allowlist, object id, state); read the object again if it is a state problem.',
  },
  reauth: {
    sdk: '`invalid_token`: drops the token, renews it once and retries once. `timestamp_out_of_range`: learns the clock offset from the `Date` header (within `maxClockSkewMs`, default one hour; beyond it the call fails with `ClockSkewError`) and retries once with a new nonce. `nonce_reused` is not retried.',
    you: 'If it surfaces, the repair did not help: check that the key is still valid and that the host clock is right (NTP).',
  },
  fatal: {
    sdk: 'Never retried: configuration or credentials are wrong.',
    you: 'Fix the configuration (credentials, signing key, host). Retrying cannot help.',
  },
  after_step_up: {
    sdk: 'Never retried automatically: the end user must act first.',
    you: 'Send the end user to `err.extras.hosted_url`; after the hosted screen is completed, call again **with the same key** (`err.idempotencyKey`). See [idempotency and retries](idempotency-and-retries.md#retrying-after-step_up_required).',
  },
  same_key_later: {
    sdk: "Never retried automatically. Only on an endpoint whose spec says the code is not stored under the key (see Endpoint overrides): there the catalogue's `new_key` becomes this class.",
    you: 'Call again later **with the same key** (`err.idempotencyKey`): nothing was stored under it, so it executes then, and the key still guards against a second execution.',
  },
};

const CLASS_ORDER: readonly RetryClass[] = [
  'same_key',
  'after_wait',
  'reauth',
  'after_step_up',
  'same_key_later',
  'new_key',
  'never',
  'fatal',
];

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function codeRow(code: ErrorCode): string {
  const info = ERROR_CODES[code];
  return `| \`${code}\` | ${info.status} | \`${info.type}\` | \`${info.retry}\` | ${escapeCell(ERROR_ACTIONS[code])} |`;
}

function overrideRows(): string[] {
  const rows: string[] = [];
  for (const e of ENDPOINTS) {
    if (INTERNAL_ENDPOINT_IDS.includes(e.id)) continue;
    if (e.lockout !== undefined) {
      const classes = ['api_error', 'idempotency_in_progress', 'brand_new_code', 'upstream_error', 'upstream_timeout']
        .map((c) => `${c === 'brand_new_code' ? 'an unknown code' : `\`${c}\``}: \`${retryClassFor(c, 500, e)}\``)
        .join(', ');
      rows.push(
        `| \`${e.method} ${e.path}\` | \`${sdkCall(e.id)}\` | failures count against the customer (${e.lockout.rule}): nothing that may have executed is resent (a 500, a 409 in progress, an unknown code; a reset, a timeout or a proxy's 5xx page end the call with \`OutcomeUnknownError\`); retried with the same key only a 429, a failure before sending, \`upstream_error\` and \`upstream_timeout\` | ${classes} |`,
      );
    } else if (e.retry === 'never') {
      rows.push(
        `| \`${e.method} ${e.path}\` | \`${sdkCall(e.id)}\` | nothing that may have reached the service is retried (429 still waits and retries: nothing ran) | every \`same_key\` code: \`${retryClassFor('api_error', 500, e)}\` |`,
      );
    } else if (e.unstoredCodes?.length) {
      const classes = e.unstoredCodes.map((c) => `\`${c}\`: \`${retryClassFor(c, 400, e)}\``).join(', ');
      rows.push(
        `| \`${e.method} ${e.path}\` | \`${sdkCall(e.id)}\` | not stored under the key: ${e.unstoredCodes.map((c) => `\`${c}\``).join(', ')} (the same key may be retried; not retried automatically) | ${classes} |`,
      );
    } else if (e.noRetryCodes?.length) {
      // Unknown codes are treated as api_error, so they follow an api_error override too.
      const unknownToo = e.noRetryCodes.includes('api_error') ? ' (nor on unknown codes, which count as `api_error`)' : '';
      const classes = [...e.noRetryCodes, ...(e.noRetryCodes.includes('api_error') ? ['an_unknown_code'] : [])]
        .map((c) => `${c === 'an_unknown_code' ? 'an unknown code' : `\`${c}\``}: \`${retryClassFor(c, 500, e)}\``)
        .join(', ');
      rows.push(
        `| \`${e.method} ${e.path}\` | \`${sdkCall(e.id)}\` | not retried on ${e.noRetryCodes.map((c) => `\`${c}\``).join(', ')}${unknownToo} | ${classes} |`,
      );
    }
  }
  return rows;
}

/** Renders the whole `docs/errors.md`. */
export function renderErrorsDoc(): string {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  return [
    '# Errors',
    '',
    '<!-- Generated by `npx tsx scripts/gen-errors-doc.ts` from `src/facts/error-codes.ts` and `src/facts/endpoints.ts`. Do not edit by hand. -->',
    '',
    'Every error the service returns becomes an `ApiError` with `code`, `type`, `status`, `message`,',
    '`requestId`, `headers`, `idempotencyKey` (when one was sent), `attempts`, `replayed` (the answer was',
    "`X-Idempotent-Replay: true`: an earlier call's stored failure), `retryClass`, `raw` and the code's typed",
    '`extras`. **Branch on `code`**, never on `message` (it may be reworded) or on the HTTP status (a 400',
    'covers both malformed requests and transactions that cannot proceed).',
    '',
    "Every error of a call, whatever its class, also carries the call's state in `err.call`: its",
    'idempotency key, whether anything may have reached the service (`sent`), and the last status and request',
    'id. See [the call state](idempotency-and-retries.md#the-call-state). `err.call` is typed as possibly',
    'undefined, for the errors raised outside a call; `hasCallState(err)` narrows it, so that strict TypeScript',
    "takes `if (hasCallState(err) && err.call.sent !== 'no')` with no further check.",
    '',
    '<!-- ts-preamble: declare const addr: string; declare function askForTopUp(): void; -->',
    '```ts',
    "import { isApiError } from 'merchant-stablecoin';",
    '',
    'try {',
    "  await client.member('ext-42').withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: addr });",
    '} catch (err) {',
    "  if (isApiError(err, 'limit_exceeded')) console.log(err.extras.limit_type, err.extras.limit_scope);",
    "  else if (isApiError(err, 'insufficient_balance')) askForTopUp();",
    '  else if (isApiError(err)) console.error(err.code, err.requestId); // quote the request id to support',
    '  else throw err; // ConnectionError, TimeoutError, AbortError, InvalidArgumentError, ...',
    '}',
    '```',
    '',
    `An unknown code (one outside these ${codes.length}) is kept as its string and treated as \`api_error\`:`,
    'retried once with the same key, then raised with its `request_id`. `err.known` tells the two apart and',
    '`err.retryClass` gives the class below.',
    '',
    `## The ${codes.length} codes`,
    '',
    '| Code | HTTP | Type | Retry class | What to do |',
    '|---|---|---|---|---|',
    ...codes.map(codeRow),
    '',
    '## Retry classes',
    '',
    '| Class | What the SDK does | What you do |',
    '|---|---|---|',
    ...CLASS_ORDER.map((c) => `| \`${c}\` | ${escapeCell(RETRY_CLASS_TEXT[c].sdk)} | ${escapeCell(RETRY_CLASS_TEXT[c].you)} |`),
    '',
    '## Endpoint overrides',
    '',
    'Where the spec warns that a 500 is a business answer, that failures count against the customer, or',
    'that a failure is not stored under the key, the endpoint descriptor in [`src/facts/endpoints.ts`](../README.md#repository-files)',
    'overrides the table above (a declarative `retry`, `noRetryCodes`, `lockout` or `unstoredCodes` setting).',
    '`err.retryClass` is derived from the same rules the retry loop applies, so it shows the override:',
    '',
    '| Endpoint | SDK method | Override | `retryClass` on this endpoint |',
    '|---|---|---|---|',
    ...overrideRows(),
    '',
    '## Extra fields',
    '',
    'Read them from `err.extras` after narrowing with `isApiError(err, code)`; they are typed per code.',
    "`code` there is one of the spec's codes, so a typo (`'insufficient_balanse'`) does not compile. A code this",
    'SDK version does not know yet (the service may add codes) is compared by hand:',
    "`isApiError(err) && err.code === 'new_code'`.",
    '',
    '| Code | Extras |',
    '|---|---|',
    '| `limit_exceeded` | `limit_type` (`single` or `daily`), `limit_scope` (`merchant` or `member`); either may be absent |',
    '| `step_up_required` | `challenge_id`, `hosted_url`, `expires_at` (Unix seconds) |',
    '| `rate_limited` | `retry_after` (seconds), and the `Retry-After` header |',
    '| `service_unavailable` | `retry_after` (seconds), only on `POST /v1/merchant/deposit-address` |',
    '| `invalid_fields` | `fields` (each `{ key, reason }`), `reason`; `fields` is documented only on `POST /v1/remit/payees` |',
    '| `state_invalid` | `locked_until` (ISO timestamp) when card activation is locked after 3 failures |',
    '',
    '## Types and HTTP statuses',
    '',
    '| Type | HTTP |',
    '|---|---|',
    ...Object.entries(ERROR_TYPES).map(([type, status]) => `| \`${type}\` | ${status} |`),
    '',
    '## Errors raised by the SDK itself',
    '',
    'All extend `MerchantSdkError`, so `err instanceof MerchantSdkError` catches everything the SDK throws.',
    '',
    '| Class | When | What to do |',
    '|---|---|---|',
    '| `InvalidArgumentError` | An argument, a per-call option (`options.timeoutMs: -5`, a typo such as `options.idempotencyKay`) or a setting was rejected before anything was sent (`err.argument` names it). A method that returns a promise rejects with it; only the constructor and `client.member()` throw. | Fix the argument. Nothing was sent. |',
    '| `ConnectionError` | The service could not be reached, or the connection broke before a full response (after the automatic retries). | When `err.call.sent` is not `no`, a write may have executed: retry later with the same key (`err.idempotencyKey`). |',
    "| `TimeoutError` | An attempt exceeded `timeoutMs`, from its start (the wait for a pooled socket and the connect included) to the end of the body (after the automatic retries), or the call's deadline (`timeoutMs × (maxRetries + 1)` from its start) passed: while it waited for a token or its rate-limit bucket, or during its last attempt. The message says which. Extends `ConnectionError`. | As for `ConnectionError`: same key; `call.sent` says whether anything reached the service. |",
    '| `AbortError` | Your `AbortSignal` fired (during a request, a queue for a socket, or a backoff sleep). | As for `ConnectionError`. |',
    '| `AcceptedButUnreadableError` | The service answered 2xx (it accepted the call: for a write, the money moved), but the body could not be read: not JSON, empty, too large. `status`, `requestId`, `body` (bounded, secrets masked). | Never retry with a new key: record the call as accepted and reconcile; the same key replays the answer. |',
    '| `ResponseValidationError` | A 2xx body was JSON but not the documented shape (`issues`, `parsed`). Extends `AcceptedButUnreadableError`. | As for `AcceptedButUnreadableError`; `validateResponses: false` returns the parsed body instead. |',
    "| `MalformedResponseError` | A non-2xx body was not the error envelope (a proxy's HTML page) or was too large. `status`, `requestId`, `snippet`. | 5xx pages are retried like the code of their status; otherwise report it. |",
    '| `RedirectRefusedError` | The answer was a redirect (`status`, `locationOrigin`). The SDK never follows one, whatever dispatcher or `fetch` is plugged. | Check the base URL. |',
    '| `ClockSkewError` | A `timestamp_out_of_range` came with a `Date` beyond `maxClockSkewMs` (default one hour) of this host: not adopted (`offsetMs`). | Fix the host clock (NTP), or raise the bound. |',
    '| `CallInterruptedError` | A plugged component (your limiter, your token store) threw during a call; `cause` is its error. | Look at `err.call`: an earlier attempt may have executed. |',
    '| `OutcomeUnknownError` | Either a call whose failures count against the customer (card activation) may have executed and was not resent: its attempt was sent and never answered (a reset, a timeout) or answered by a proxy\'s 5xx page (`cause`); or a money-moving call did not run, but its intent could not be removed from the intent journal (the record\'s answer was lost, or the settle after a "not run" answer failed), so a later `recover()` may still send it (`cause` is what ended the call; `call.attempts` may be 0). `call.sent` is `maybe` or `yes`. | Card activation: do not resend it: check first (the message says how; for a card, read it: `active` means done), then let the user decide on a new attempt. A journaled call: call again with the same `idempotencyKey` (the service executes a key once, whether or not `recover()` also sends it); never make it again with a new key. |',
    "| `RecoveryInterruptedError` | `client.recover()` stopped because the journal could not claim the next intent; `cause` is the journal's error. | Read `err.report`: every outcome it had (orders resent, answers); the intents not reached stay open for the next `recover()`. |",
    '| `PaginationRestartError` | A list iterator saw the service restart from the first page (expired cursor). | Start a new iteration. |',
    '',
  ].join('\n');
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const text = renderErrorsDoc();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(DOC_PATH, 'utf8');
    } catch {
      // Missing counts as out of date.
    }
    if (current !== text) {
      console.error('docs/errors.md is out of date: run `npx tsx scripts/gen-errors-doc.ts`.');
      process.exit(1);
    }
    console.log('docs/errors.md is up to date.');
  } else {
    writeFileSync(DOC_PATH, text);
    console.log(`wrote ${DOC_PATH}`);
  }
}
