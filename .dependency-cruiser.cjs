/**
 * The house's boundaries, checked by `npm run lint` (dependency-cruiser over `src`, type-only
 * imports included): no import circle anywhere, and the rooms of `src/core` pointing one way.
 * `src/core/README.md` draws the same rooms; change both together.
 */

/** The rooms of src/core from the ground up: a room may import only the rooms before it. */
const CORE_ROOMS = [
  'errors', // the error classes, the call state they carry, the retry class of an answer
  'telemetry', // log lines, redaction, spans and metrics
  'time', // clocks, sleeps, a call's deadline, the service's clock offset
  'crypto', // signing bytes, nonces, encodings
  'transport', // one attempt on the wire: undici or fetch, interceptors seen
  'platform', // which transport and signer a runtime gets
  'credentials', // the access token: cache, renewal, store
  'limits', // quotas, 429 pauses, the client-side limiter
  'call', // a call prepared once: path, body bytes, key, bucket
  'lists', // keyset pages and their iteration
  'attempts', // the attempt loop: sign, send, classify, repair, retry
  'journal', // intents recorded before sending, settled, recovered
  'pipeline', // what resources call: a call, a list, a raw request, the token exchange
];

const layering = CORE_ROOMS.map((room, rank) => {
  const above = CORE_ROOMS.slice(rank + 1);
  return {
    name: `core-${room}-one-way`,
    comment: `src/core/${room} may not reach up into ${above.join(', ')}: the arrows between rooms point one way`,
    severity: 'error',
    from: { path: `^src/core/${room}/` },
    to: { path: `^src/core/(${above.join('|')})/` },
  };
}).filter((rule) => !rule.to.path.endsWith('()/'));

/** The entries whose peer dependency is optional: nothing outside their folder imports them. */
const optionalEntries = [
  ['redis', 'ioredis'],
  ['postgres', 'pg'],
].map(([folder, peer]) => ({
  name: `${folder}-stays-optional`,
  comment: `Nothing outside src/${folder} imports it, so no other entry needs ${peer}.`,
  severity: 'error',
  from: { pathNot: `^src/${folder}/` },
  to: { path: `^src/${folder}/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layering,
    {
      name: 'core-shared-files-at-the-bottom',
      comment: "src/core's own files (text facts, per-call option types) import no room of it but errors.",
      severity: 'error',
      from: { path: '^src/core/[^/]+\\.ts$' },
      to: { path: `^src/core/(${CORE_ROOMS.filter((r) => r !== 'errors').join('|')})/` },
    },
    {
      name: 'core-knows-no-namespace',
      comment: 'The pipeline knows no resource, no simulator, no webhook receiver, no fleet store and no client.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(resources|testing|webhooks|redis|postgres|client\\.ts|client-options\\.ts)' },
    },
    {
      name: 'testing-shares-no-code-with-the-client',
      comment: 'The simulator has its own signing, errors and schemas (src/testing/README.md): one bug must not make both sides agree.',
      severity: 'error',
      from: { path: '^src/testing/' },
      to: { path: '^src/(core|schemas|facts|resources)/' },
    },
    {
      name: 'webhooks-use-core-through-named-doors',
      comment:
        'The webhook receiver takes from src/core only errors, telemetry, fillPath, the raw request and per-call option types, the runtime probe and JSON reading (src/webhooks/README.md).',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: {
        path: '^src/core/',
        pathNot:
          '^src/core/(errors/|telemetry/|call/url\\.ts|pipeline/raw-request\\.ts|types\\.ts|platform/runtime\\.ts|attempts/(response|result)\\.ts)',
      },
    },
    {
      name: 'fleet-stores-plug-into-contracts',
      comment:
        'The fleet stores (src/redis, src/postgres) plug into the contracts only (their READMEs): errors, time, the logger, the token store, the journal contract, the limits, the event store.',
      severity: 'error',
      from: { path: '^src/(redis|postgres)/' },
      to: {
        path: '^src/(core|webhooks|resources|testing|client|payouts)',
        pathNot:
          '^src/(core/(errors/|time/|telemetry/logger\\.ts|credentials/token-store\\.ts|journal/intent-journal\\.ts|limits/)|webhooks/(event-store|memory-event-store)\\.ts|payouts/(store|record)\\.ts)',
      },
    },
    {
      name: 'payouts-use-the-client-through-named-doors',
      comment:
        'The payout workflow (src/payouts/README.md) calls the service through the client and its resources only; from src/core it takes errors, telemetry, the clock, the key derivation and the recovery report types.',
      severity: 'error',
      from: { path: '^src/payouts/' },
      to: {
        path: '^src/(core|webhooks|testing|redis|postgres|resources)',
        pathNot: '^src/(core/(errors/|telemetry/|time/clock\\.ts|call/idempotency-key\\.ts|journal/report\\.ts)|resources/guards\\.ts)',
      },
    },
    {
      name: 'nothing-else-imports-payouts',
      comment:
        'The workflow is an entry of its own (merchant-stablecoin/payouts): only the stores take its contract, so no other entry carries it.',
      severity: 'error',
      from: { pathNot: '^src/(payouts|redis|postgres)/' },
      to: { path: '^src/payouts/' },
    },
    ...optionalEntries,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
