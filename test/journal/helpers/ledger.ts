/**
 * A loopback service for the journal tests that counts effects per idempotency key: it executes
 * a money-moving request once per key (one "effect"), stores the answer, and replays it to the
 * same key and body afterwards (`x-idempotent-replay: true`), as the spec's idempotency rules say.
 * It verifies each signature with its own code (the wire server's) and refuses a reused nonce,
 * so a resend with the same nonce would show.
 *
 * Chosen over the SDK's sandbox because the crash tests need a kill point the sandbox has no
 * hook for: "executed, answer not sent yet". `holdAnswer(route)` executes and stores the next
 * new request of a route, then never answers it: the test kills the client meanwhile.
 */
import { createHash } from 'node:crypto';
import { apiError, startWireServer, type RecordedRequest, type Reply, type WireServer } from '../../helpers/wire-server.js';

/** The money routes the ledger serves, by short name. */
export const ROUTES = {
  withdrawal: '/v1/withdrawals',
  conversion: '/v1/merchant/conversions',
  topup: '/v1/cards/crd_1/topups',
  activation: '/v1/cards/crd_1/activate',
} as const;

/** The PIN the crash tests' activation sends (they check that it never reaches Redis). */
export const ACTIVATION_PIN = '8642';

/** A short name of a route. */
export type RouteName = keyof typeof ROUTES;

interface Stored {
  readonly route: string;
  readonly bodyHash: string;
  readonly reply: Reply;
}

/** What a test may put in front of a route: an answer given instead of executing (undefined: execute). */
type Interposer = (req: RecordedRequest) => Reply | undefined | Promise<Reply | undefined>;

/** The ledger service. */
export interface Ledger {
  readonly url: string;
  readonly server: WireServer;
  /** How many times the request with this key was executed (0 or 1 if the client is right). */
  effects(key: string): number;
  /** Requests received with this key, in order (replays and refusals included). */
  received(key: string): RecordedRequest[];
  /** Every key executed, in order. */
  executedKeys(): string[];
  /** The answer stored for a key at its execution. */
  answer(key: string): Reply | undefined;
  /**
   * The next new request on `route` is executed and stored, then held unanswered for good;
   * resolves with its key once it has executed.
   */
  holdAnswer(route: RouteName): Promise<string>;
  /** Answers requests on `route` with `interposer`'s reply (when it gives one) instead of executing them. */
  interpose(route: RouteName, interposer: Interposer | undefined): void;
  close(): Promise<void>;
}

/** The answer a first execution gives, per route. */
function execute(route: RouteName, body: Record<string, unknown>, n: number): Reply {
  switch (route) {
    case 'withdrawal':
      return { status: 201, body: { id: `wdr_${n}`, status: 'locked', ledger_scale: 6, ...body } };
    case 'conversion':
      return {
        status: 201,
        body: {
          id: `mcv_${n}`,
          from_asset: body['from_asset'],
          to_asset: body['to_asset'],
          from_amount: body['from_amount'],
          to_amount: body['from_amount'],
          rate: '1',
          fee_asset: body['to_asset'],
          fee_amount: '0',
          ledger_scale_from: 6,
          ledger_scale_to: 6,
          created_at: '2026-11-27T10:00:00.000Z',
        },
      };
    case 'topup':
      return { status: 201, body: { id: `ctp_${n}`, card_id: 'crd_1', amount: body['amount'], status: 'pending' } };
    case 'activation':
      return { status: 200, body: { id: 'crd_1', status: 'active' } };
  }
}

/** Starts the ledger on a free loopback port. */
export async function startLedger(): Promise<Ledger> {
  const server = await startWireServer();
  const stored = new Map<string, Stored>();
  const effects = new Map<string, number>();
  const executed: string[] = [];
  const nonces = new Set<string>();
  const holds = new Map<RouteName, (key: string) => void>();
  const interposers = new Map<RouteName, Interposer>();

  const handle =
    (name: RouteName) =>
    async (req: RecordedRequest): Promise<Reply> => {
      if (!req.signatureValid) return apiError(401, 'invalid_signature');
      const nonce = req.headers['x-nonce']!;
      if (nonces.has(nonce)) return apiError(401, 'nonce_reused');
      nonces.add(nonce);
      const key = req.headers['x-idempotency-key'];
      if (key === undefined) return apiError(400, 'idempotency_key_required');
      if (name !== 'conversion' && req.headers['x-on-behalf-of'] === undefined) return apiError(400, 'member_context_required');
      const instead = await interposers.get(name)?.(req);
      if (instead !== undefined) return instead;
      const bodyHash = createHash('sha256').update(req.body).digest('hex');
      const earlier = stored.get(key);
      if (earlier !== undefined) {
        if (earlier.route !== ROUTES[name] || earlier.bodyHash !== bodyHash) return apiError(409, 'idempotency_key_reused');
        return { ...earlier.reply, headers: { ...earlier.reply.headers, 'x-idempotent-replay': 'true' } };
      }
      executed.push(key);
      effects.set(key, (effects.get(key) ?? 0) + 1);
      const reply = execute(name, JSON.parse(req.body.toString('utf8')) as Record<string, unknown>, executed.length);
      stored.set(key, { route: ROUTES[name], bodyHash, reply });
      const hold = holds.get(name);
      if (hold !== undefined) {
        holds.delete(name);
        hold(key);
        // Executed and stored; the answer is never sent (the client is killed meanwhile).
        return new Promise<Reply>(() => undefined);
      }
      return reply;
    };
  for (const name of Object.keys(ROUTES) as RouteName[]) server.on('POST', ROUTES[name], handle(name));

  return {
    url: server.url,
    server,
    effects: (key) => effects.get(key) ?? 0,
    received: (key) => server.calls().filter((c) => c.headers['x-idempotency-key'] === key),
    executedKeys: () => [...executed],
    answer: (key) => stored.get(key)?.reply,
    holdAnswer: (route) => new Promise<string>((resolve) => holds.set(route, resolve)),
    interpose: (route, interposer) => {
      if (interposer === undefined) interposers.delete(route);
      else interposers.set(route, interposer);
    },
    close: () => server.close(),
  };
}
