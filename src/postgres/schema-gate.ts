/**
 * A store's table verified once, on the store's first use: every operation waits for that answer
 * (shared by the operations that arrive meanwhile), never longer than its own budget.
 *
 * - The table fits: cached, for the instance's life; no operation checks it again.
 * - It exists and differs (a `jsonb` intent column, a missing index): cached too, logged once as
 *   an `error`, and every operation rejects with that `misconfigured` error, never sent, until
 *   `verifySchema()` or `ensureSchema()` finds the table fixed.
 * - No answer (PostgreSQL down, slow, refusing for now), or no table yet, or the catalogs refused
 *   (a grant): not cached. The operation rejects with that failure (`executed: false`: it was
 *   never sent) and the next operation verifies again, so a migration run after the start is
 *   picked up. An operation whose budget ends first rejects then, `unreachable`; the verify goes
 *   on, and its answer, when it comes, serves the next operations.
 */
import { log, type Logger } from '../core/telemetry/logger.js';
import { storeErrorOf, unsentAs, type PostgresStoreError } from './failures.js';

/** The verify of one store's table, run on first use and cached (see the module comment). */
export class SchemaGate {
  /** `true` once the table fits; the misconfiguration of a table that differs. */
  #verdict: true | PostgresStoreError | undefined;
  #inflight: Promise<true | PostgresStoreError> | undefined;
  #logged: string | undefined;

  constructor(
    /**
     * Checks the table, read-only; rejects with a `misconfigured` error naming what differs.
     * `lockWaitMs`: how long it may wait on a lock another session holds (the first operation's
     * budget, less the time its answer needs; the statement timeout when absent).
     */
    private readonly check: (lockWaitMs?: number) => Promise<void>,
    /** The store's logger as it is now (the receiver's when the store has none: read per line). */
    private readonly logger: () => Logger | undefined,
    private readonly component: string,
  ) {}

  /**
   * Resolves once the table is known to fit (at once after the first time); rejects with the
   * table's misconfiguration, or with a failure of `operation` (never sent) when the verify got
   * no answer within `budgetMs`.
   */
  async ready(operation: string, budgetMs: number): Promise<void> {
    if (this.#verdict === true) return;
    if (this.#verdict !== undefined) throw unsentAs(this.#verdict, operation);
    // Half the budget for a lock another session holds: its refusal comes back while we wait.
    this.#inflight ??= this.#settle(this.check(budgetMs / 2)).finally(() => (this.#inflight = undefined));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expiry = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), Math.max(0, budgetMs))));
    const outcome = await Promise.race([this.#inflight, expiry]).finally(() => clearTimeout(timer));
    if (outcome === true) return;
    if (outcome === 'expired')
      throw storeErrorOf(new Error(`no answer to the table's verify within ${Math.round(budgetMs)} ms`), operation, [], true);
    throw unsentAs(outcome, operation);
  }

  /** Runs the verify now (`verifySchema()`, `ensureSchema()`), and keeps its answer as the gate's. */
  async verify(): Promise<void> {
    const outcome = await this.#settle(this.check());
    if (outcome !== true) throw outcome;
  }

  /** The verify's answer: kept when it is a verdict on the table (fits, or differs), else not. */
  async #settle(checking: Promise<void>): Promise<true | PostgresStoreError> {
    try {
      await checking;
      this.#verdict = true;
      this.#logged = undefined;
      return true;
    } catch (err) {
      const failure = storeErrorOf(err, 'verify the table', []);
      // A difference carries no SQLSTATE (the server did not refuse anything): a verdict.
      const verdict = failure.kind === 'misconfigured' && failure.code === undefined;
      this.#verdict = verdict ? failure : undefined;
      // The runner logs the server's own refusals and outages; a table that does not fit, here, once.
      const ours = failure.kind === 'misconfigured' && (failure.code === undefined || failure.code === '42P01');
      if (ours && this.#logged !== failure.message) {
        this.#logged = failure.message;
        log(this.logger(), 'error', `merchant-stablecoin/postgres: ${this.component}: ${failure.message}`, { code: failure.code });
      }
      return failure;
    }
  }
}
